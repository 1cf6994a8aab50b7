import sys

from spycraft.cli.main import main

sys.exit(main())
