"""The LAN lab for the tests: ``netns-lab.sh`` (a copy of the team's shared lab tool), a Python
driver for it (``netns``) and a passive frame watcher that runs on the lab's switch (``sniff``)."""
