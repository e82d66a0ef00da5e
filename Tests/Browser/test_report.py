#!/usr/bin/env python3
"""Drives headless Chromium over run reports that `retryflow` wrote (scripts/test-browser.sh makes
them and passes their paths): the page loads without console errors or network requests, the
keyboard, buttons and slider step through the run, the timeline has one bar per attempt, the
page works without JavaScript, on a phone-width screen and in dark mode, and it is not blank."""

import json
import os
import shutil
import struct
import sys
import unittest
import zlib

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

REPORTS = [os.path.abspath(p) for p in os.environ.get("RETRYFLOW_REPORTS", "").split(os.pathsep) if p]
# The reports of runs made with a policy (simulate --report, the demo): they open on the policy's chart.
POLICY_REPORTS = {os.path.abspath(p) for p in os.environ.get("RETRYFLOW_POLICY_REPORTS", "").split(os.pathsep) if p}


def make_driver(width=1300, height=1000):
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which(os.environ.get("CHROMIUM", "chromium")) or "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     f"--window-size={width},{height}", "--hide-scrollbars"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    service = Service(shutil.which(os.environ.get("CHROMEDRIVER", "chromedriver")) or "/usr/bin/chromedriver")
    driver = webdriver.Chrome(service=service, options=options)
    # A page that hangs fails its test instead of the run (scripts/test-browser.sh bounds the whole run).
    driver.set_page_load_timeout(30)
    driver.set_script_timeout(30)
    return driver


def png_pixels(png):
    """(width, height, rows of RGBA/RGB bytes) of an 8-bit PNG, unfiltered: enough to tell blank from drawn."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    position, idat, width = 8, b"", 0
    while position < len(png):
        length, kind = struct.unpack(">I4s", png[position:position + 8])
        data = png[position + 8:position + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", data[:10])
            assert depth == 8 and colour in (2, 6), f"unexpected PNG kind {depth}/{colour}"
            channels = 4 if colour == 6 else 3
        elif kind == b"IDAT":
            idat += data
        position += 12 + length
    raw, stride, rows, previous = zlib.decompress(idat), width * channels, [], bytearray(width * channels)
    for y in range(height):
        filter_type = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = previous[x]
            c = previous[x - channels] if x >= channels else 0
            if filter_type == 1:
                line[x] = (line[x] + a) & 255
            elif filter_type == 2:
                line[x] = (line[x] + b) & 255
            elif filter_type == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif filter_type == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        previous = line
    return width, height, channels, rows


class ReportInBrowser(unittest.TestCase):
    path = None
    # Whether the page is a run's report with its policy (simulate, fetch, the demo): it opens on the policy's chart.
    policy = False

    @classmethod
    def setUpClass(cls):
        cls.driver = make_driver()

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()

    def open(self):
        self.driver.get("file://" + self.path)
        return self.driver.find_element(By.TAG_NAME, "body")

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def steps(self):
        """Each step's row (None when it matched none) and attempt, read from the page's step table."""
        cells = self.js("return [...document.querySelectorAll('#steps tbody tr')].map(r => "
                        "[...r.children].map(c => c.textContent));")
        return [(None if c[5] == "none" else int(c[5]), 0 if c[2] == "-" else int(c[2])) for c in cells]

    def visible_current_edges(self):
        return self.js("return [...document.querySelectorAll('#charts figure:not([hidden]) .edge.now')].map(e => e.id);")

    def test_loads_without_console_errors_or_network_requests(self):
        self.open()
        self.driver.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
        errors = [e for e in self.driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR", "WARNING")]
        self.assertEqual(errors, [], "console messages")
        requests = []
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message["method"] == "Network.requestWillBeSent":
                requests.append(message["params"]["request"]["url"])
        self.assertTrue(all(url.startswith("file://") and url.endswith(self.path) for url in requests), requests)
        self.assertEqual(self.js("return performance.getEntriesByType('resource').length;"), 0)

    def test_arrow_right_n_times_highlights_the_nth_steps_edge_and_row(self):
        body = self.open()
        steps = self.steps()
        self.assertGreater(len(steps), 2)
        self.assertEqual(self.visible_current_edges(), [], "nothing is current before the first step")
        for n, (row, _) in enumerate(steps, start=1):
            body.send_keys(Keys.ARROW_RIGHT)
            self.assertIn("current", self.driver.find_element(By.ID, f"step_{n}").get_attribute("class"))
            self.assertEqual(self.js("return document.querySelectorAll('#steps tr.current').length;"), 1)
            fired = self.js("return [...document.querySelectorAll('tr.fired')].map(r => r.id);")
            self.assertEqual(fired, [f"tablerow_{row}"], f"step {n}")
            edges = self.visible_current_edges()
            self.assertTrue(edges, f"step {n}: no edge highlighted")
            prefix = "policy_flowchart_" if self.policy else "flowchart_"
            for edge in edges:
                self.assertTrue(edge.startswith(prefix + "row"), edge)
                self.assertIn(str(row), edge[len(prefix):].split("_")[1:], f"step {n}: edge {edge} is not row {row}'s")
            self.assertEqual(self.driver.find_element(By.ID, "slider").get_attribute("value"), str(n))
        body.send_keys(Keys.ARROW_RIGHT)  # past the end: stays at the end
        self.assertIn("current", self.driver.find_element(By.ID, f"step_{len(steps)}").get_attribute("class"))
        body.send_keys(Keys.ARROW_LEFT)
        self.assertIn("current", self.driver.find_element(By.ID, f"step_{len(steps) - 1}").get_attribute("class"))
        body.send_keys(Keys.HOME)
        self.assertEqual(self.js("return document.querySelectorAll('#steps tr.current').length;"), 0)

    def test_state_style_highlights_the_same_row(self):
        body = self.open()
        row, _ = self.steps()[0]
        self.driver.find_element(By.ID, "style-state").click()
        body.send_keys(Keys.ARROW_RIGHT)
        if self.policy:
            # A state the policy passes in no time is drawn as part of an edge: that edge stands for this row too.
            edges = self.visible_current_edges()
            self.assertEqual(len(edges), 1)
            self.assertIn(str(row), edges[0][len("policy_state_"):].split("_")[1:])
        else:
            self.assertEqual(self.visible_current_edges(), [f"state_row_{row}"])
        self.assertTrue(self.driver.find_element(By.CSS_SELECTOR, "figure[data-style=state]").is_displayed())
        self.assertFalse(self.driver.find_element(By.CSS_SELECTOR, "figure[data-style=flowchart]").is_displayed())

    def final_state_reached(self):
        steps = self.steps()
        status = self.driver.find_element(By.ID, "status").text
        self.assertIn(f"step {len(steps)} of {len(steps)}", status)
        self.assertIn("(the end)", status)
        self.assertIn("current", self.driver.find_element(By.ID, f"step_{len(steps)}").get_attribute("class"))
        final = self.js("return document.querySelector('#summary dd').textContent;")
        here = self.js("return [...document.querySelectorAll('#charts figure:not([hidden]) .node.here')]"
                       ".map(n => n.querySelector('title').textContent);")
        self.assertEqual(here, [final])

    def test_end_key_reaches_the_final_state(self):
        self.open().send_keys(Keys.END)
        self.final_state_reached()

    def test_slider_reaches_the_final_state(self):
        self.open()
        slider = self.driver.find_element(By.ID, "slider")
        slider.click()
        slider.send_keys(Keys.END)
        self.final_state_reached()

    def test_last_first_and_next_buttons(self):
        self.open()
        self.driver.find_element(By.ID, "last").click()
        self.final_state_reached()
        self.driver.find_element(By.ID, "first").click()
        self.assertEqual(self.js("return document.querySelectorAll('#steps tr.current').length;"), 0)
        self.driver.find_element(By.ID, "next").click()
        self.assertIn("current", self.driver.find_element(By.ID, "step_1").get_attribute("class"))

    def test_play_runs_to_the_end_and_stops(self):
        self.open()
        n = len(self.steps())
        self.js("document.getElementById('speed').value = '250';")  # 4x: a step every 250 ms
        play = self.driver.find_element(By.ID, "play")
        play.click()
        self.assertEqual(play.get_attribute("aria-label"), "pause", "playing says it can pause")
        # Waits on the page's own state, never a fixed time: the last step reached and the timer stopped.
        WebDriverWait(self.driver, 5 + n * 0.25 * 4).until(
            lambda d: play.get_attribute("aria-label") == "play", "play never stopped")
        self.final_state_reached()

    def test_timeline_has_one_bar_per_attempt(self):
        self.open()
        attempts = {attempt for _, attempt in self.steps() if attempt > 0}
        bars = self.js("return [...document.querySelectorAll('svg.timeline .attempt')].map(b => b.dataset.attempt);")
        self.assertEqual(sorted(map(int, bars)), sorted(attempts))
        titles = self.js("return [...document.querySelectorAll('svg.timeline .attempt title')].map(t => t.textContent);")
        self.assertTrue(all(t.startswith("attempt ") and ": " in t for t in titles), titles)
        now_x = "return parseFloat(document.getElementById('timeline-now').getAttribute('x1'));"
        start = self.js(now_x)
        self.driver.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
        total = max(float(s) for s in self.js(
            "return [...document.querySelectorAll('svg.timeline .attempt')].map(b => b.dataset.start);"))
        if total > 0:
            self.assertGreater(self.js(now_x), start, "the time marker moves with the steps")

    def test_screenshot_is_not_blank(self):
        self.open().send_keys(Keys.END)
        width, height, channels, rows = png_pixels(self.driver.get_screenshot_as_png())
        colours = set()
        differing = 0
        background = rows[0][:3]
        for row in rows[::4]:
            for x in range(0, width * channels, channels * 4):
                pixel = row[x:x + 3]
                colours.add(pixel)
                differing += pixel != background
        self.assertGreater(len(colours), 20, "too few colours: blank page?")
        self.assertGreater(differing, 2000, "too few drawn pixels: blank page?")

    def test_phone_width_page_does_not_scroll_sideways_and_chart_is_legible(self):
        self.driver.set_window_size(390, 844)
        try:
            self.open()
            self.assertLessEqual(self.js("return window.innerWidth;"), 400, "the window did not shrink")
            overflow = self.js("return document.documentElement.scrollWidth - window.innerWidth;")
            self.assertLessEqual(overflow, 0, "the page is wider than a phone")
            self.assertTrue(self.driver.find_element(By.ID, "controls").is_displayed())
            # The chart keeps its text at Graphviz's point size (or more) and scrolls inside its frame,
            # keeping the current state in view.
            scale = self.js("var s = document.querySelector('figure.chart:not([hidden]) svg');"
                            "return s.getBoundingClientRect().width / s.viewBox.baseVal.width;")
            self.assertGreaterEqual(scale, 1.0, "chart text shrunk below its point size")
            self.driver.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
            inside = self.js("var f = document.querySelector('figure.chart:not([hidden])'),"
                             " a = f.getBoundingClientRect(), b = f.querySelector('.node.here').getBoundingClientRect();"
                             "return b.left >= a.left && b.right <= a.right;")
            self.assertTrue(inside, "the current state is outside the chart's frame")
        finally:
            self.driver.set_window_size(1300, 1000)

    def test_a_wide_chart_takes_the_whole_row(self):
        self.open()
        self.driver.find_element(By.ID, "style-state").click()
        wide = self.js("var b = document.querySelector('figure[data-style=state] svg').viewBox.baseVal;"
                       "return b.width > 2 * b.height;")
        share = self.js("return document.querySelector('figure[data-style=state]').getBoundingClientRect().width"
                        " / document.querySelector('main').getBoundingClientRect().width;")
        if wide:
            self.assertGreater(share, 0.95, "a wide chart beside the table shrinks its text")
        else:
            self.assertLess(share, 0.7, "a chart that is not wide shares the row with the table")

    def test_opens_on_the_policys_chart_and_the_full_table_is_one_click_away(self):
        body = self.open()
        shown = "return [...document.querySelectorAll('#charts figure:not([hidden])')].map(f => f.dataset.chart);"
        if not self.policy:
            # A trace rendered without its policy (render --trace, the teaching pages): the table's chart only.
            self.assertEqual(self.js(shown), ["flowchart"])
            self.assertEqual(self.driver.find_elements(By.ID, "scope-table"), [])
            return
        self.assertEqual(self.js(shown), ["policy_flowchart"], "the page opens on the policy's chart")
        self.assertEqual(self.driver.find_element(By.ID, "scope-policy").get_attribute("aria-pressed"), "true")
        count = "return document.querySelectorAll('figure[data-chart=' + arguments[0] + '] .edge').length;"
        self.assertLess(self.js(count, "policy_flowchart"), self.js(count, "flowchart"),
                        "the policy's chart draws fewer rows than the whole table")
        # One click: the whole table's chart, with the run still stepped over it.
        self.driver.find_element(By.ID, "scope-table").click()
        self.assertEqual(self.js(shown), ["flowchart"])
        self.assertTrue(self.driver.find_element(By.CSS_SELECTOR, "figure[data-chart=flowchart]").is_displayed())
        self.assertEqual(self.driver.find_element(By.ID, "scope-table").get_attribute("aria-pressed"), "true")
        body.send_keys(Keys.END)
        self.final_state_reached()
        row, _ = self.steps()[-1]
        edges = self.visible_current_edges()
        self.assertTrue(edges and all(e.startswith("flowchart_row") for e in edges), edges)
        self.assertTrue(all(str(row) in e.split("_")[2:] for e in edges), f"{edges} are not row {row}'s")
        self.driver.find_element(By.ID, "style-state").click()
        self.assertEqual(self.js(shown), ["state"])
        self.driver.find_element(By.ID, "scope-policy").click()
        self.assertEqual(self.js(shown), ["policy_state"])

    def test_dark_mode_is_dark(self):
        self.open()
        self.driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                                    {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
        background = self.js("return getComputedStyle(document.body).backgroundColor;")
        text = self.js("return getComputedStyle(document.querySelector('svg text')).fill;")
        self.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
        self.assertEqual(background, "rgb(13, 17, 23)")
        self.assertEqual(text, "rgb(230, 237, 243)", "chart text follows the scheme")

    def test_readable_without_javascript(self):
        self.open()
        # The step count the script works from (its JSON), to hold the script-free table against.
        steps = self.js("return RUN.steps.length;")
        self.driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
        try:
            self.open()
            self.assertFalse(self.driver.find_element(By.ID, "controls").is_displayed())
            charts = self.driver.find_elements(By.CSS_SELECTOR, "figure.chart svg")
            self.assertEqual(len(charts), 4 if self.policy else 2, "with the policy's chart, both scopes are shown")
            self.assertTrue(all(c.is_displayed() for c in charts))
            self.assertEqual(len(self.driver.find_elements(By.CSS_SELECTOR, "#steps tbody tr")), steps)
            # The run is drawn over both charts (the taken edges in the overlay's colour), not only stepped by script.
            for chart in charts:
                taken = chart.find_elements(By.CSS_SELECTOR, '.edge path[stroke="#1f6feb"]')
                self.assertTrue(taken and all(path.is_displayed() for path in taken), "no taken edge drawn")
        finally:
            self.driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})


def main():
    if not REPORTS:
        sys.exit("test_report.py: set RETRYFLOW_REPORTS to the report files to check")
    suite = unittest.TestSuite()
    for path in REPORTS:
        case = type(f"Report_{os.path.basename(path).replace('.', '_').replace('-', '_')}", (ReportInBrowser,),
                    {"path": path, "policy": path in POLICY_REPORTS})
        suite.addTests(unittest.defaultTestLoader.loadTestsFromTestCase(case))
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
