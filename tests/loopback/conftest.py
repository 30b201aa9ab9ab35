"""Make the loopback fixtures available to the tests in this folder."""

from tests.loopback.fixtures import loopback

__all__ = ["loopback"]
