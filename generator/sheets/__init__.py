"""Sheets: takes rendered faces and pieces and gives the pages a printer prints: grids, crop marks,
duplex backs, tiles, the calibration sheet, and one preflighted pack PDF + manifest per player count.
"""
