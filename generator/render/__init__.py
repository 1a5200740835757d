"""Drawing: takes a checked Game and gives one canonical PDF page per card face and back (Jinja +
WeasyPrint) and per board, track and token (reportlab), with their fonts, icons and the face cache.
"""
