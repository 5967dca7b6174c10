#!/usr/bin/env python3
"""Drives capplan's web page in headless Chromium (Debian's chromium + chromium-driver, through
python3-selenium) against the real capplan-server on free ports and a temporary database.

Usage: browser_test.py SERVER_BINARY OUTPUT_DIR
Writes OUTPUT_DIR/tco-page.png: the TCO section with the README's template drawn.

Chromium missing is a failure, not a skip: scripts/install-deps.sh installs it before
`make test`, so its absence means a broken install that a skip would hide.
"""
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import Select, WebDriverWait
except ImportError as e:
    sys.exit(f"FAIL: python3-selenium is not importable by {sys.executable} ({e}); run scripts/install-deps.sh")

SERVER = None
OUT_DIR = None
WAIT_S = 20


def find_browser():
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver") or ("/usr/bin/chromedriver" if os.path.exists("/usr/bin/chromedriver") else None)
    if not chromium or not driver:
        sys.exit("FAIL: chromium and chromium-driver are required (scripts/install-deps.sh installs them)")
    return chromium, driver


class ServerProcess:
    """capplan-server on port 0 for gRPC, metrics and HTTP; the banner says which ports it got."""

    BANNER = re.compile(r"on http://[^ ,]+:(\d+)/v1/")

    def __init__(self, binary):
        self.dir = tempfile.mkdtemp(prefix="capplan-web-")
        self.proc = subprocess.Popen(
            [binary, "--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0", "--http_listen=127.0.0.1:0",
             "--db=" + os.path.join(self.dir, "capplan.db")],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        line = self.proc.stdout.readline()  # blocks until the banner or exit
        m = self.BANNER.search(line)
        if not m:
            self.stop()
            raise RuntimeError("capplan-server did not print its HTTP port: " + line + self.proc.stdout.read())
        self.base = f"http://127.0.0.1:{m.group(1)}"

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


def http(method, url, body=None, headers=None):
    req = urllib.request.Request(url, method=method, data=body, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


class WebPageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        chromium, driver = find_browser()
        cls.server = ServerProcess(SERVER)
        cls.profile = tempfile.mkdtemp(prefix="capplan-chromium-")
        opts = webdriver.ChromeOptions()
        opts.binary_location = chromium
        for flag in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--no-first-run", "--disable-extensions", "--window-size=1366,768",
                     "--user-data-dir=" + cls.profile]:
            opts.add_argument(flag)
        try:
            cls.driver = webdriver.Chrome(service=Service(executable_path=driver), options=opts)
        except Exception:
            cls.server.stop()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.server.stop()
        shutil.rmtree(cls.profile, ignore_errors=True)

    def open_page(self):
        self.driver.get(self.server.base + "/")
        wait = WebDriverWait(self.driver, WAIT_S)
        wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true")
        return wait

    def fill(self, element_id, value):
        e = self.driver.find_element(By.ID, element_id)
        e.clear()
        e.send_keys(str(value))

    def fill_tco_template(self, horizon=36, count=8):
        # The README's TCO example: 8 x A100 80 GB,
        # $250,000 up front, $5,000/month ops, no power, against $15,000/month flat rent, 36 months.
        Select(self.driver.find_element(By.ID, "tco-gpu")).select_by_value("A100-SXM4-80GB")
        self.fill("tco-count", count)
        self.fill("tco-horizon", horizon)
        self.fill("tco-capex", 250000)
        self.fill("tco-power", 0)
        self.fill("tco-ops", 5000)
        self.driver.find_element(By.ID, "tco-rent-flat").click()
        self.fill("tco-rent-month", 15000)

    def test_tco_template_breaks_even_in_month_25(self):
        wait = self.open_page()
        self.fill_tco_template()
        self.driver.find_element(By.ID, "tco-submit").click()
        be = wait.until(EC.visibility_of_element_located((By.ID, "tco-break-even")))
        # Cash: 250,000 + 5,000 m <= 15,000 m first at m = 25 (README, TCO example).
        self.assertEqual(be.text, "month 25")
        self.assertNotIn("null", self.driver.find_element(By.ID, "tco-result").text)
        label = self.driver.find_element(By.ID, "tco-chart-break-even")
        self.assertEqual(label.text, "break-even: month 25")
        # Totals at month 36: own 250,000 + 36 x 5,000; rent 36 x 15,000 (docs/cli.md's table).
        self.assertEqual(self.driver.find_element(By.ID, "tco-own-total").text, "$430,000")
        self.assertEqual(self.driver.find_element(By.ID, "tco-rent-total").text, "$540,000")
        # Per used GPU-hour, 8 GPUs x 730 h: rent 15,000 / 5,840 = $2.57; own (250,000 / 36
        # + 5,000) / 5,840 = $2.05 (README: "per used GPU-hour: own $2.05, rent $2.57").
        self.assertEqual(self.driver.find_element(By.ID, "tco-rent-gpu-hour").text, "$2.57/GPU-hour")
        self.assertEqual(self.driver.find_element(By.ID, "tco-own-gpu-hour").text, "$2.05/GPU-hour")
        # Both curves are drawn across the horizon, and the sources are there to read.
        for line in ["tco-own-line", "tco-rent-line"]:
            d = self.driver.find_element(By.ID, line).get_attribute("d")
            self.assertEqual(d.count("L"), 35, line)  # months 1..36
        # The defaults the server filled in, with their sources (docs/cli.md: "default own.pue 1.2").
        sources = self.driver.find_element(By.ID, "tco-sources").get_attribute("textContent")
        self.assertIn("default own.pue", sources)
        self.assertIn("Uptime Institute", sources)
        self.screenshot_tco()

    def screenshot_tco(self):
        rect = self.driver.execute_script(
            "const r = document.getElementById('tco').getBoundingClientRect();"
            "return {x: r.left + window.scrollX - 8, y: r.top + window.scrollY - 8, width: r.width + 16,"
            "        height: r.height + 16};")
        shot = self.driver.execute_cdp_cmd("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": rect["x"], "y": rect["y"], "width": rect["width"], "height": rect["height"], "scale": 1}})
        path = os.path.join(OUT_DIR, "tco-page.png")
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        print("screenshot:", path)

    def api_top_option(self, request):
        body = json.dumps(dict(request, view="VIEW_BASIC")).encode()
        status, _, raw = http("POST", self.server.base + "/v1/plan", body, {"Content-Type": "application/json"})
        self.assertEqual(status, 200, raw)
        return json.loads(raw)["options"][0]

    def run_plan(self, wait, top_k):
        self.fill("plan-topk", top_k)
        before = self.driver.find_elements(By.CSS_SELECTOR, "#plan-options")
        self.driver.find_element(By.ID, "plan-submit").click()
        if before:
            wait.until(EC.staleness_of(before[0]))
        rows = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#plan-options tbody tr.option"))
        self.assertEqual(len(rows), top_k)
        self.assertEqual([r.get_attribute("data-rank") for r in rows], [str(i + 1) for i in range(top_k)])
        return rows

    def assert_row_is(self, row, option):
        where = row.find_element(By.TAG_NAME, "th")
        self.assertIn(option.get("instanceType", option.get("instance_type", "")), where.text)
        self.assertIn(option.get("gpuName", option.get("gpu_name")), row.text)
        self.assertIn("price:", where.get_attribute("title"))  # provenance on hover
        self.assertRegex(row.text, r"\$[\d.,]+/h")

    def test_plan_lists_the_servers_ranked_options(self):
        wait = self.open_page()
        # The README's serving example: Llama-2-7B, 512 prompt and 128 output tokens, 35 req/s,
        # 50 ms per output token (the form's defaults).
        Select(self.driver.find_element(By.ID, "plan-model")).select_by_value("Llama-2-7B")
        rows = self.run_plan(wait, 3)
        # The page's top option is the one the API ranks first for the same question.
        self.assert_row_is(rows[0], self.api_top_option(
            {"serving": {"model_name": "Llama-2-7B", "prompt_tokens": 512, "output_tokens": 128,
                         "requests_per_second": 35, "tpot_slo_seconds": 0.05}, "top_k": 3}))
        self.assertRegex(rows[0].text, r"[\d.]+ \([\d.]+-[\d.]+\) req/s")  # point (low-high)
        self.assertRegex(rows[0].text, r"\$[\d.,]+/1M req")
        rejected = self.driver.find_elements(By.CSS_SELECTOR, "#plan-rejected li")
        self.assertGreater(len(rejected), 0)
        self.assertTrue(all(":" in r.text for r in rejected))
        # Training: the README's LoRA example (Llama-2-7B, 2e9 tokens; the form's defaults).
        self.driver.find_element(By.ID, "plan-kind-training").click()
        rows = self.run_plan(wait, 2)
        self.assert_row_is(rows[0], self.api_top_option(
            {"training": {"model_name": "Llama-2-7B", "tokens": 2e9, "method": "TRAINING_METHOD_LORA"}, "top_k": 2}))
        self.assertRegex(rows[0].text, r"[\d.]+ \([\d.]+-[\d.]+\) days")

    def test_tco_rent_from_the_catalog_cites_its_price(self):
        wait = self.open_page()
        self.fill_tco_template()
        self.driver.find_element(By.ID, "tco-rent-catalog").click()
        instance = Select(self.driver.find_element(By.ID, "tco-instance"))
        # Migration 0002: aws p4de.24xlarge (8 x A100 80 GB) in us-east-1, from the AWS EC2
        # On-Demand pricing page as of 2024-06-01.
        instance.select_by_value(json.dumps(["aws", "p4de.24xlarge", "us-east-1"], separators=(",", ":")))
        self.driver.find_element(By.ID, "tco-submit").click()
        rent = wait.until(EC.visibility_of_element_located((By.ID, "tco-rent-gpu-hour")))
        self.assertIn("p4de.24xlarge us-east-1", rent.get_attribute("title"))
        self.assertIn("AWS EC2 On-Demand pricing page", rent.get_attribute("title"))
        self.assertRegex(rent.text, r"^\$[\d.]+/GPU-hour$")
        # The same source is readable without a mouse, in the sources table.
        sources = self.driver.find_element(By.ID, "tco-sources").get_attribute("textContent")
        self.assertIn("rent price: aws p4de.24xlarge us-east-1 on demand", sources)
        ways = self.driver.find_element(By.ID, "tco-rent-options").get_attribute("textContent")
        self.assertIn("on demand", ways)

    def assert_error_next_to(self, input_id, wait, *phrases):
        err = wait.until(EC.visibility_of_element_located((By.ID, input_id + "-err")))
        for p in phrases:
            self.assertIn(p, err.text)
        field = self.driver.find_element(By.ID, input_id)
        self.assertEqual(field.get_attribute("aria-invalid"), "true")
        self.assertEqual(field.get_attribute("aria-describedby"), input_id + "-err")
        # Next to it: the message sits in the same .field block as its input.
        self.assertEqual(err.find_element(By.XPATH, "..").get_attribute("class"), "field")
        self.assertEqual(field.find_element(By.XPATH, "..").id, err.find_element(By.XPATH, "..").id)
        return err

    def test_invalid_input_shows_the_servers_error_at_its_field(self):
        wait = self.open_page()
        self.fill_tco_template(horizon=0)
        self.driver.find_element(By.ID, "tco-submit").click()
        # The server's range for TcoRequest.horizon_months (planner.proto: 1..120).
        self.assert_error_next_to("tco-horizon", wait, "horizon_months", "must be in [1, 120]", "got 0")
        self.assertEqual(self.driver.switch_to.active_element.get_attribute("id"), "tco-horizon")
        # Fixed, and a negative count instead: the message moves to the count.
        self.fill_tco_template(horizon=36, count=-1)
        self.driver.find_element(By.ID, "tco-submit").click()
        self.assert_error_next_to("tco-count", wait, "gpu_count", "got -1")
        self.assertEqual(self.driver.find_element(By.ID, "tco-horizon-err").text, "")
        self.assertIsNone(self.driver.find_element(By.ID, "tco-horizon").get_attribute("aria-invalid"))

    def test_every_input_has_a_label_and_results_are_live(self):
        self.open_page()
        for e in self.driver.find_elements(By.CSS_SELECTOR, "input, select"):
            labels = self.driver.find_elements(By.CSS_SELECTOR, f"label[for='{e.get_attribute('id')}']")
            self.assertEqual(len(labels), 1, e.get_attribute("id"))
        for rid in ["tco-result", "plan-result"]:
            self.assertEqual(self.driver.find_element(By.ID, rid).get_attribute("aria-live"), "polite")
        # Keyboard: Tab from the first TCO control reaches the next one in document order.
        first = self.driver.find_element(By.ID, "tco-gpu")
        self.driver.execute_script("arguments[0].focus()", first)
        first.send_keys(Keys.TAB)
        self.assertEqual(self.driver.switch_to.active_element.get_attribute("id"), "tco-count")


class AssetHttpTest(unittest.TestCase):
    """The page's files over plain HTTP: types, caching, 404, methods."""

    @classmethod
    def setUpClass(cls):
        cls.server = ServerProcess(SERVER)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def test_types_etag_404_and_methods(self):
        base = self.server.base
        status, headers, body = http("GET", base + "/")
        self.assertEqual(status, 200)
        self.assertEqual(headers["Content-Type"], "text/html; charset=utf-8")
        self.assertIn(b"<script src=\"app.js\">", body)
        self.assertEqual(http("GET", base + "/app.js")[1]["Content-Type"], "text/javascript; charset=utf-8")
        status, headers, _ = http("GET", base + "/style.css")
        self.assertEqual(headers["Content-Type"], "text/css; charset=utf-8")
        self.assertEqual(headers["Cache-Control"], "no-cache")
        self.assertEqual(http("GET", base + "/style.css", headers={"If-None-Match": headers["ETag"]})[0], 304)
        status, head_headers, head_body = http("HEAD", base + "/app.js")
        self.assertEqual((status, head_body), (200, b""))
        self.assertEqual(int(head_headers["Content-Length"]), len(http("GET", base + "/app.js")[2]))
        self.assertEqual(http("GET", base + "/no-such-file.js")[0], 404)
        status, headers, _ = http("POST", base + "/", b"x")
        self.assertEqual((status, headers.get("Allow")), (405, "GET, HEAD"))
        # The JSON API is still the gateway's, not the page's.
        status, headers, _ = http("GET", base + "/v1/gpus")
        self.assertEqual(status, 200)
        self.assertTrue(headers["Content-Type"].startswith("application/json"))


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    SERVER, OUT_DIR = sys.argv[1], sys.argv[2]
    started = time.monotonic()
    result = unittest.main(argv=[sys.argv[0], "-v"] + sys.argv[3:], exit=False).result
    print(f"browser tests: {time.monotonic() - started:.1f} s")
    sys.exit(0 if result.wasSuccessful() else 1)
