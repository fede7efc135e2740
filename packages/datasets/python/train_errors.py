"""The one error of `citeflow train`'s input: a bad export, base, option or device, said in the user's terms (exit code 2).

Its own module, so that every part of the trainer (citeflow_train.py runs as __main__, the others import it) raises
and catches the same class."""


class InputError(Exception):
    """Bad input, said in the user's terms; exit code 2."""
