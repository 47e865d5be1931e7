"""A real headless browser for the HTML report: Debian's chromium, driven by Selenium through
Debian's chromedriver (no browser or driver is downloaded: Selenium is given both paths).

`headless_chromium()` installs the two packages with apt-get when they are missing and this
is root on a Debian machine (as CI is); elsewhere the tests that need it skip, saying how to
get it. Under CI a failed install fails, so a report never goes untested there unnoticed.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.debian import install

PACKAGES = ("chromium", "chromium-driver")
DRIVER = Path("/usr/bin/chromedriver")


def ensure_chromium() -> str:
    """The chromium binary's path, installed first if it can be; else the test skips."""
    found = shutil.which("chromium")
    if found and DRIVER.exists():
        return found
    install(PACKAGES)
    return shutil.which("chromium") or pytest.fail("chromium is not on PATH after its install")


@contextmanager
def headless_chromium() -> Iterator[object]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = ensure_chromium()
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(DRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def console_errors(driver: object) -> list[dict]:
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]  # type: ignore[attr-defined]
