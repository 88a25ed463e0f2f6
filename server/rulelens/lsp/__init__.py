"""SHELL: the language server (pygls wiring only).

``server`` holds the thin handlers, ``session`` the per-workspace state that calls the
pure core, ``views`` turns chains into hovers, code lenses and payloads, ``watch`` follows
the disk, and ``protocol`` names every custom method.
"""
