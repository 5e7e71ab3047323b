"""The browser tests (a package, so that its conftest is ``browser.conftest``, not a second ``conftest``)."""
