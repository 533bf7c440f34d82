"""Training the dice detector (needs the `train` extra: PyTorch). `python -m vision.train --help`."""
