import sys

from vision.train.train import main

sys.exit(main())
