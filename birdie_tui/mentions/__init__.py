"""@-mentions: the files and folders of the working directory a message can name.

A leaf every front end may use (standard library and `pathspec` only, nothing else of the
package): the index of the working directory (`index.py`), fuzzy matching over it
(`fuzzy.py`), and a message's mentions turned into attachments in the form the model sees,
read back for a call's provenance (`attach.py`). It is about the front end's own files, so the
TUI and `--print` expand mentions before a message reaches the door, whichever door it is.
"""
