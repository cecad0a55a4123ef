"""What the tests of a model rebuilt from its shipped folder share: the repository's folders, a system's
shipped folder and parity fixture, and PyTorch (None when this python3 has none: /usr/bin/python3 has
Debian's). Importing it puts models/train on the path, so the tests import draftsmith_train."""
import os
import sys

TRAIN = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
REPO = os.path.abspath(os.path.join(TRAIN, "..", ".."))
sys.path.insert(0, TRAIN)

try:
    import torch
except ImportError:
    torch = None

NO_TORCH = "needs PyTorch (Debian's python3-torch)"


def shipped(system):
    """The system's shipped folder and the parity fixture that holds what its graphs compute."""
    return os.path.join(REPO, "models", system), os.path.join(REPO, "test", "fixtures", f"{system}-parity.json")
