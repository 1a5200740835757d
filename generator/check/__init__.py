"""Checking: takes a loaded Game (or a written PDF) and gives Problems (file:line: message): the validator,
the expression evaluator every stage uses, and preflight, which reads finished PDFs back.
"""
