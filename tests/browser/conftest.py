"""A real headless Chromium (Debian's chromium + chromium-driver, driven by Selenium) for
the memory inspector's browser tests. A browser that cannot start fails the tests: it
never skips them (tests/browser/setup.sh installs one)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service

DOCS = Path(__file__).resolve().parents[2] / "docs"
WIDTH, HEIGHT = 1280, 900
SCREENSHOTS = "NPC_BRAIN_SCREENSHOTS"  # set (to 1): the tests write docs/inspector-*.png


def _find(variable: str, *names: str) -> str:
    given = os.environ.get(variable)
    if given:
        return given
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    return f"/usr/bin/{names[0]}"


@pytest.fixture(scope="session")
def chromium() -> Iterator[webdriver.Chrome]:
    """One headless Chromium for the session."""
    os.environ.setdefault("SE_OFFLINE", "true")  # Selenium never downloads a driver here
    options = webdriver.ChromeOptions()
    options.binary_location = _find("NPC_BRAIN_CHROMIUM", "chromium", "chromium-browser")
    for argument in (
        "--headless=new",
        "--no-sandbox",  # CI runs as root
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--lang=en-US",
        "--force-device-scale-factor=1",
        f"--window-size={WIDTH},{HEIGHT}",
    ):
        options.add_argument(argument)
    driver_path = _find("NPC_BRAIN_CHROMEDRIVER", "chromedriver")
    try:
        driver = webdriver.Chrome(service=Service(driver_path), options=options)
    except (WebDriverException, OSError) as error:
        pytest.fail(
            f"headless Chromium ({options.binary_location}, driver {driver_path}) did not "
            f"start: {error}. Run tests/browser/setup.sh (Debian: apt-get install chromium "
            "chromium-driver) or set NPC_BRAIN_CHROMIUM and NPC_BRAIN_CHROMEDRIVER.",
            pytrace=False,
        )
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


@pytest.fixture
def browser(chromium: webdriver.Chrome) -> webdriver.Chrome:
    """The session's Chromium with no cookie left from another test."""
    chromium.execute_cdp_cmd("Network.clearBrowserCookies", {})
    chromium.set_window_size(WIDTH, HEIGHT)
    return chromium


def screenshot(driver: webdriver.Chrome, name: str) -> None:
    """Writes docs/inspector-<name>.png of the whole page when NPC_BRAIN_SCREENSHOTS is set
    (the README's pictures come from here)."""
    if not os.environ.get(SCREENSHOTS):
        return
    height = int(driver.execute_script("return document.documentElement.scrollHeight"))
    metrics = {"width": WIDTH, "height": min(height, 1800), "deviceScaleFactor": 1}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {**metrics, "mobile": False})
    try:
        driver.save_screenshot(str(DOCS / f"inspector-{name}.png"))
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
