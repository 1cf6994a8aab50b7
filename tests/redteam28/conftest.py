import pytest

from tests.net.harness import kill_all


@pytest.fixture(autouse=True)
def no_stray_processes():
    yield
    kill_all()
