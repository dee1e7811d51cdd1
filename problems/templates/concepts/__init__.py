"""Concepts family: questions about mechanisms and choices (what a layer does, which
store suits a dataset, which signal to scale on), answered by picking one option, where
every wrong option is a named misconception with its own feedback."""
