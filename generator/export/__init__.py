"""Beyond paper: takes the same rendered faces and gives files for other destinations: PNGs,
print-shop uploads (PDF/X-4 too), Tabletop Simulator decks and the web gallery.
"""
