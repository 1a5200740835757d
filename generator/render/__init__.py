"""Drawing: card faces and backs from HTML (WeasyPrint), pieces with reportlab."""
