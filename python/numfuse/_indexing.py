"""Advanced indexing (integer arrays, boolean masks). Basic indexing is in C++."""


def getitem(a, key):
    raise NotImplementedError(f"advanced indexing with {type(key).__name__} is not implemented yet")


def setitem(a, key, value):
    raise NotImplementedError(f"advanced indexing with {type(key).__name__} is not implemented yet")
