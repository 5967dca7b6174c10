#!/usr/bin/env python3
"""Drives capplan's web page in headless Chromium (Debian's chromium + chromium-driver, through
python3-selenium) against the real capplan-server on free ports and a temporary database.

Usage: browser_test.py SERVER_BINARY OUTPUT_DIR
Writes OUTPUT_DIR/*.png: the TCO section with the README's template drawn (tco-page.png), its
sensitivity tornado (tco-tornado.png), and the Plan's frontier chart (plan-frontier.png) and
memory breakdown (plan-memory.png), Deploy's panel (plan-deploy.png) and an import (import.png)
for the README's serving example; docs/ holds copies of the first four.

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
    from selenium.webdriver.common.action_chains import ActionChains
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

    ADMIN_TOKEN = "web-test-admin-token-0123456789"
    # The README's TCO example as a stored scenario, for the embedded TCO view.
    SCENARIOS = [{"name": "readme-a100", "request": {
        "horizon_months": 36, "fleets": [{"gpu_name": "A100-SXM4-80GB", "gpu_count": 8,
                                          "own": {"capex_usd": 250000, "ops_usd_per_month": 5000, "power_watts": 0},
                                          "rent": {"price_usd_per_month": 15000}}]}}]

    def __init__(self, binary):
        self.dir = tempfile.mkdtemp(prefix="capplan-web-")
        tokens = os.path.join(self.dir, "tokens")
        with open(os.open(tokens, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            f.write(self.ADMIN_TOKEN + " web-test admin\n")
        scenarios = os.path.join(self.dir, "scenarios.json")
        with open(scenarios, "w") as f:
            json.dump(self.SCENARIOS, f)
        self.proc = subprocess.Popen(
            [binary, "--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0", "--http_listen=127.0.0.1:0",
             "--db=" + os.path.join(self.dir, "capplan.db"), "--admin_token_file=" + tokens,
             "--tco_scenarios_file=" + scenarios],
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

    def screenshot(self, name, *element_ids):
        """The union of the elements' boxes (plus a margin) as OUTPUT_DIR/<name>.png."""
        rect = self.driver.execute_script(
            "const rs = arguments[0].map((id) => document.getElementById(id).getBoundingClientRect());"
            "const x = Math.min(...rs.map((r) => r.left)), y = Math.min(...rs.map((r) => r.top));"
            "const r = Math.max(...rs.map((r) => r.right)), b = Math.max(...rs.map((r) => r.bottom));"
            "return {x: x + window.scrollX - 8, y: y + window.scrollY - 8, width: r - x + 16, height: b - y + 16};",
            list(element_ids))
        shot = self.driver.execute_cdp_cmd("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": rect["x"], "y": rect["y"], "width": rect["width"], "height": rect["height"], "scale": 1}})
        path = os.path.join(OUT_DIR, name + ".png")
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        print("screenshot:", path)

    def screenshot_tco(self):
        self.screenshot("tco-page", "tco")

    def api(self, path, request):
        body = json.dumps(request).encode()
        status, _, raw = http("POST", self.server.base + path, body, {"Content-Type": "application/json"})
        self.assertEqual(status, 200, raw)
        return json.loads(raw)

    def api_top_option(self, request):
        return self.api("/v1/plan", dict(request, view="VIEW_BASIC"))["options"][0]

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
        self.assertIn("price:", where.find_element(By.CSS_SELECTOR, ".where").get_attribute("data-tip"))  # provenance
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
        self.assertRegex(rows[0].text, r"[\d.]+ req/s\n[\d.]+-[\d.]+\n")  # point, low-high under it
        self.assertRegex(rows[0].text, r"\$[\d.,]+/1M req")
        rejected = self.driver.find_elements(By.CSS_SELECTOR, "#plan-rejected li")
        self.assertGreater(len(rejected), 0)
        self.assertTrue(all(":" in r.get_attribute("textContent") for r in rejected))
        # Training: the README's LoRA example (Llama-2-7B, 2e9 tokens; the form's defaults).
        self.driver.find_element(By.ID, "plan-kind-training").click()
        rows = self.run_plan(wait, 2)
        self.assert_row_is(rows[0], self.api_top_option(
            {"training": {"model_name": "Llama-2-7B", "tokens": 2e9, "method": "TRAINING_METHOD_LORA"}, "top_k": 2}))
        self.assertRegex(rows[0].text, r"[\d.]+ days\n[\d.]+-[\d.]+\n")

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
        self.assertIn("p4de.24xlarge us-east-1", rent.get_attribute("data-tip"))
        self.assertIn("AWS EC2 On-Demand pricing page", rent.get_attribute("data-tip"))
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


    # ---- The page that shows the decision: charts, folding, risks, grouping, layout. ----

    SERVING = {"model_name": "Llama-2-7B", "prompt_tokens": 512, "output_tokens": 128,
               "requests_per_second": 35, "tpot_slo_seconds": 0.05}

    def plan_serving_example(self, top_k=5):
        """The README's serving example on the page (the form's defaults) and the same question
        asked of the API directly."""
        wait = self.open_page()
        Select(self.driver.find_element(By.ID, "plan-model")).select_by_value("Llama-2-7B")
        self.run_plan(wait, top_k)
        answer = self.api("/v1/plan", {"serving": self.SERVING, "top_k": top_k, "view": "VIEW_FULL",
                                       "max_rejected": 20, "objective": "OBJECTIVE_CHEAPEST"})
        return wait, answer

    def test_plan_frontier_marks_the_chosen_option(self):
        _, answer = self.plan_serving_example()
        options = answer["options"]
        chart = self.driver.find_element(By.ID, "plan-frontier")
        points = chart.find_elements(By.CSS_SELECTOR, "g.pt-group")
        self.assertEqual(sorted(int(p.get_attribute("data-rank")) for p in points),
                         [o["rank"] for o in options])
        chosen = chart.find_elements(By.CSS_SELECTOR, "g.pt-group.chosen")
        self.assertEqual(len(chosen), 1)
        self.assertEqual(chosen[0].get_attribute("data-rank"), "1")
        # Where the API puts it: USD/month against TPOT in ms (the form's SLO is a TPOT one).
        self.assertAlmostEqual(float(chosen[0].get_attribute("data-y")), options[0]["usdPerMonth"], places=2)
        self.assertAlmostEqual(float(chosen[0].get_attribute("data-x")), options[0]["tpotSeconds"]["point"] * 1000,
                               places=6)
        label = self.driver.find_element(By.ID, "plan-frontier-chosen").text
        self.assertIn("chosen #1", label)
        self.assertIn(options[0]["instanceType"], label)
        self.assertEqual(len(chart.find_elements(By.CSS_SELECTOR, "circle.ring")), 1)
        self.assertIsNotNone(self.driver.find_element(By.ID, "plan-frontier-slo"))  # the 50 ms target
        self.screenshot("plan-frontier", "plan-frontier-fig")
        # By keyboard: a point takes focus (its figures in the tooltip) and Enter opens its "why".
        second = chart.find_element(By.CSS_SELECTOR, "g.pt-group[data-rank='2']")
        self.driver.execute_script("arguments[0].focus()", second)
        self.assertEqual(self.driver.find_element(By.ID, "tip").text, second.get_attribute("data-tip"))
        second.send_keys(Keys.ENTER)
        self.assertEqual(self.driver.find_element(By.ID, "plan-why").get_attribute("data-rank"), "2")
        # p99 end to end: the API's own frontier over every option considered is drawn too.
        Select(self.driver.find_element(By.ID, "plan-frontier-axis")).select_by_value("e2e")
        considered = self.driver.find_elements(By.CSS_SELECTOR, "#plan-frontier circle.api-point[data-candidate]")
        self.assertEqual(len(considered), len(answer["frontier"]))
        # TTFT on the other axis: the chosen point moves to the API's TTFT (seconds).
        Select(self.driver.find_element(By.ID, "plan-frontier-axis")).select_by_value("ttft")
        chosen = self.driver.find_element(By.CSS_SELECTOR, "#plan-frontier g.pt-group.chosen")
        self.assertAlmostEqual(float(chosen.get_attribute("data-x")), options[0]["ttftSeconds"]["point"], places=6)
        # Training: cost of the run against days, the chosen one the API's first.
        self.driver.find_element(By.ID, "plan-kind-training").click()
        self.run_plan(WebDriverWait(self.driver, WAIT_S), 3)
        top = self.api_top_option({"training": {"model_name": "Llama-2-7B", "tokens": 2e9,
                                                "method": "TRAINING_METHOD_LORA"}, "top_k": 3})
        chosen = self.driver.find_element(By.CSS_SELECTOR, "#plan-frontier g.pt-group.chosen")
        self.assertAlmostEqual(float(chosen.get_attribute("data-x")), top["durationSeconds"]["point"] / 86400, places=6)
        self.assertAlmostEqual(float(chosen.get_attribute("data-y")), top["totalCostUsd"]["point"], places=2)

    def test_memory_breakdown_sums_to_the_returned_bytes(self):
        _, answer = self.plan_serving_example()
        parts = {"weights": "weightsBytes", "KV cache": "kvCacheBytes", "activations": "activationsBytes",
                 "gradients": "gradientsBytes", "optimizer state": "optimizerBytes", "overhead": "overheadBytes"}
        for o in answer["options"]:
            mem = o["memoryPerGpu"]
            bar = self.driver.find_element(By.CSS_SELECTOR, f"#plan-option-{o['rank']} svg.membar")
            segs = bar.find_elements(By.CSS_SELECTOR, "rect.seg")
            self.assertGreaterEqual(len(segs), 2, o["rank"])
            got = {s.get_attribute("data-part"): float(s.get_attribute("data-bytes")) for s in segs}
            # Each named part is the API's, and together with any "other" they make its total.
            for name, field in parts.items():
                if mem.get(field):
                    self.assertAlmostEqual(got[name], mem[field], delta=1.0, msg=name)
            self.assertAlmostEqual(sum(got.values()), mem["totalBytes"], delta=1.0)
            # Drawn against the GPU's memory: the segments fill total / capacity of the bar.
            width = sum(float(s.get_attribute("width")) for s in segs)
            self.assertLessEqual(mem["totalBytes"], mem["capacityBytes"])
            self.assertAlmostEqual(width / float(bar.get_attribute("data-width")),
                                   mem["totalBytes"] / mem["capacityBytes"], delta=0.005)
        self.screenshot("plan-memory", "plan-memory-legend", "plan-options")

    def test_tco_tornado_and_savings_line_follow_the_api(self):
        wait = self.open_page()
        self.fill_tco_template()
        self.fill("tco-rate", 0.08)  # a cost of capital, so that the discount rate bar has a swing
        self.driver.find_element(By.ID, "tco-submit").click()
        wait.until(EC.visibility_of_element_located((By.ID, "tco-tornado")))
        answer = self.api("/v1/tco", {
            "fleets": [{"role": "fleet", "gpu_name": "A100-SXM4-80GB", "gpu_count": 8,
                        "own": {"capex_usd": 250000, "power_watts": 0, "ops_usd_per_month": 5000},
                        "rent": {"price_usd_per_month": 15000}}],
            "horizon_months": 36, "discount_rate_fraction_per_year": 0.08})
        bars = self.driver.find_elements(By.CSS_SELECTOR, "#tco-tornado g.bar")
        entries = answer["sensitivity"]
        self.assertGreater(len(entries), 0)
        self.assertEqual([b.get_attribute("data-input") for b in bars], [e["input"] for e in entries])
        # Bar lengths in proportion to the swings (the largest first, as the API orders them).
        widths = [sum(float(r.get_attribute("width")) for r in b.find_elements(By.TAG_NAME, "rect")) for b in bars]
        big = entries[0].get("swingUsd", 0)
        self.assertGreater(big, 0)
        for e, w in zip(entries, widths):
            if e.get("swingUsd", 0) > 0:
                self.assertAlmostEqual(w / widths[0], e["swingUsd"] / big, delta=0.02, msg=e["input"])
        # The savings line: cumulative NPV rent - own, one point a month, crossing 0 in the
        # API's discounted break-even month.
        line = self.driver.find_element(By.ID, "tco-savings-line")
        self.assertEqual(line.get_attribute("d").count("L"), 35)
        last = answer["series"][-1]
        self.assertAlmostEqual(float(line.get_attribute("data-last-usd")),
                               last["rentDiscountedCumulativeUsd"] - last["ownDiscountedCumulativeUsd"], delta=0.01)
        self.assertEqual(self.driver.find_element(By.ID, "tco-savings-payback").get_attribute("data-month"),
                         str(answer["discountedBreakEvenMonth"]))
        self.screenshot("tco-tornado", "tco-tornado-fig")

    def test_not_chosen_grouped_by_reason_with_counts(self):
        _, answer = self.plan_serving_example()
        want = {}
        for r in answer["rejected"]:
            want[r["reasonCode"]] = want.get(r["reasonCode"], 0) + 1
        self.assertGreater(len(want), 1)  # several reasons, so grouping is tested
        groups = self.driver.find_elements(By.CSS_SELECTOR, "#plan-rejected details.reason-group")
        got = {g.get_attribute("data-reason"): int(g.get_attribute("data-count")) for g in groups}
        self.assertEqual(got, want)
        for g in groups:
            n = int(g.get_attribute("data-count"))
            self.assertEqual(len(g.find_elements(By.TAG_NAME, "li")), n)
            self.assertIn(f"({n})", g.find_element(By.TAG_NAME, "summary").text)
        heading = self.driver.find_element(By.ID, "plan-not-chosen-title").text
        self.assertIn(f"Not chosen ({len(answer['rejected'])})", heading)

    def test_equivalent_packagings_fold_under_one_row(self):
        _, answer = self.plan_serving_example()
        # The same GPUs from the same provider, region and price kind in another instance
        # packaging (8 x gpu_1x_a6000 or 2 x gpu_4x_a6000 in the shipped catalog).
        key = lambda o: (o.get("ownedPool", ""), o.get("provider", ""), o.get("region", ""), o["gpuName"],
                         o["gpuCount"], o.get("provenance", {}).get("priceKind", ""))
        groups = {}
        for o in answer["options"]:
            groups.setdefault(key(o), []).append(o["rank"])
        folded = [ranks for ranks in groups.values() if len(ranks) > 1]
        self.assertTrue(folded, "the example no longer has two packagings of one offer")
        for ranks in groups.values():
            head = self.driver.find_element(By.ID, f"plan-option-{ranks[0]}")
            self.assertTrue(head.is_displayed())
            buttons = head.find_elements(By.CSS_SELECTOR, "button.fold")
            if len(ranks) == 1:
                self.assertEqual(buttons, [])
                continue
            button = buttons[0]
            n = len(ranks) - 1
            self.assertEqual(button.text, f"+{n} packaging" + ("s" if n > 1 else ""))
            self.assertEqual(button.get_attribute("aria-expanded"), "false")
            rest = [self.driver.find_element(By.ID, f"plan-option-{r}") for r in ranks[1:]]
            self.assertFalse(any(r.is_displayed() for r in rest))
            button.click()
            self.assertEqual(button.get_attribute("aria-expanded"), "true")
            self.assertTrue(all(r.is_displayed() for r in rest))
            button.click()
            self.assertFalse(any(r.is_displayed() for r in rest))

    def test_slo_risk_flagged_and_why_in_a_panel(self):
        _, answer = self.plan_serving_example()
        flagged = 0
        for o in answer["options"]:
            row = self.driver.find_element(By.ID, f"plan-option-{o['rank']}")
            text = row.get_attribute("textContent")
            misses = o["tpotSeconds"]["high"] > self.SERVING["tpot_slo_seconds"]
            self.assertEqual(row.get_attribute("data-slo-risk"), "true" if misses else "false", o["rank"])
            if misses:
                flagged += 1
                # Text, not colour only: the flag and the pessimistic figure against the target.
                self.assertIn("SLO risk", text)
                self.assertIn("TPOT up to %.1f ms, target 50 ms" % (o["tpotSeconds"]["high"] * 1000), text)
            else:
                self.assertNotIn("SLO risk", text)
        self.assertGreater(flagged, 0)
        # "why" opens the option's explanation in the panel, not in a table column.
        last = answer["options"][-1]
        row = self.driver.find_element(By.ID, f"plan-option-{last['rank']}")
        button = row.find_element(By.CSS_SELECTOR, "button.why")
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
        button.click()
        panel = self.driver.find_element(By.ID, "plan-why")
        self.assertIn(f"Why #{last['rank']}", panel.find_element(By.TAG_NAME, "h3").text)
        self.assertIn(last["explanation"].split(";")[0], panel.get_attribute("textContent"))
        self.assertEqual(button.get_attribute("aria-pressed"), "true")
        self.assertNotIn(last["explanation"].split(";")[0], self.driver.find_element(By.ID, "plan-options").text)
        tallest = max(r.size["height"] for r in self.driver.find_elements(By.CSS_SELECTOR, "#plan-options tbody tr")
                      if r.is_displayed())
        self.assertLess(tallest, 160)

    # ---- From the plan to files that run it: Deploy in the "why" panel. ----

    def deploy_from_why(self, wait, target_label):
        Select(self.driver.find_element(By.ID, "plan-deploy-target")).select_by_visible_text(target_label)
        self.driver.find_element(By.ID, "plan-action-deploy").click()
        return wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#plan-action-result .deploy-file, "
                                                                      "#plan-action-result .deploy-error"))

    def test_deploy_renders_the_chosen_option_as_a_kubernetes_manifest(self):
        wait, answer = self.plan_serving_example()
        o = answer["options"][0]
        p = o["parallelism"]
        tp, replicas = p.get("tensorParallel", 1), o.get("replicas", 1)
        self.assertEqual(self.driver.find_element(By.ID, "plan-why").get_attribute("data-rank"), "1")
        targets = [e.text for e in Select(self.driver.find_element(By.ID, "plan-deploy-target")).options]
        self.assertNotIn("Slurm", targets)  # Slurm renders training only (planner.proto, DeployTarget)
        files = self.deploy_from_why(wait, "Kubernetes")
        self.assertEqual(len(files), 1, self.driver.find_element(By.ID, "plan-action-result").text)
        f = files[0]
        text = f.find_element(By.TAG_NAME, "pre").get_attribute("textContent")
        self.assertIn("kind: Deployment", text)
        # The option's layout as the API's Plan answer gives it: tensor-parallel size on the
        # engine's command line and as the pod's GPUs, pods as replicas, GPUs as pods x TP.
        self.assertRegex(text, r"--tensor-parallel-size['\"]?\s*\n\s*-\s*['\"]?%d['\"]?\s*\n" % tp)
        self.assertRegex(text, r"nvidia\.com/gpu:\s*['\"]?%d['\"]?\s*\n" % tp)
        self.assertRegex(text, r"\breplicas:\s*%d\s*\n" % replicas)
        self.assertEqual(replicas * tp, o["gpuCount"])
        self.assertIn(o["gpuName"], text)
        self.assertIn(f"{o['gpuCount']} x {o['gpuName']}", self.driver.find_element(By.ID, "plan-why").text)
        # The download link carries the same text (a Blob URL, no network) under the file's name.
        link = f.find_element(By.LINK_TEXT, "download")
        self.assertTrue(link.get_attribute("href").startswith("blob:"))
        self.assertEqual(link.get_attribute("download"), f.get_attribute("data-name"))
        downloads = tempfile.mkdtemp(prefix="capplan-downloads-", dir=OUT_DIR)
        self.addCleanup(shutil.rmtree, downloads, True)
        self.driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
        link.click()
        saved = os.path.join(downloads, link.get_attribute("download"))
        WebDriverWait(self.driver, WAIT_S).until(lambda d: os.path.exists(saved))
        with open(saved, encoding="utf-8") as got:
            self.assertEqual(got.read(), text)
        # "copy" puts the same text on the clipboard (permission granted as a user would).
        self.driver.execute_cdp_cmd("Browser.grantPermissions", {
            "origin": self.server.base, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
        f.find_element(By.XPATH, ".//button[text()='copy']").click()
        wait.until(lambda d: f.find_element(By.CSS_SELECTOR, "[role=status]").text)
        self.assertEqual(f.find_element(By.CSS_SELECTOR, "[role=status]").text, "copied")
        pasted = self.driver.execute_async_script(
            "navigator.clipboard.readText().then(arguments[0], (e) => arguments[0]('ERR ' + e))")
        self.assertEqual(pasted, text)
        # The server's notes, readable under the files.
        notes = self.driver.find_elements(By.CSS_SELECTOR, "#plan-action-result ul.deploy-notes li")
        self.assertGreater(len(notes), 0)
        # Keyboard: the file's text takes focus, so it scrolls without a mouse.
        self.assertEqual(f.find_element(By.TAG_NAME, "pre").get_attribute("tabindex"), "0")
        self.screenshot("plan-deploy", "plan-why")

    def test_refused_deploy_shows_its_reason(self):
        wait = self.open_page()
        Select(self.driver.find_element(By.ID, "plan-model")).select_by_value("Llama-2-7B")
        # The README's LoRA fine-tune (the form's defaults): Deploy renders full training with
        # Megatron-LM, which has no LoRA (core/deploy/training_render.cc), so it refuses.
        self.driver.find_element(By.ID, "plan-kind-training").click()
        self.run_plan(wait, 2)
        targets = [e.text for e in Select(self.driver.find_element(By.ID, "plan-deploy-target")).options]
        self.assertIn("Slurm", targets)
        found = self.deploy_from_why(wait, "Slurm")
        err = found[0]
        self.assertEqual(err.get_attribute("class"), "err deploy-error")
        self.assertEqual(err.get_attribute("role"), "alert")
        self.assertEqual(err.get_attribute("data-status"), "FAILED_PRECONDITION")
        self.assertIn("cannot be deployed as planned (option #1)", err.text)
        self.assertIn("LoRA", err.text)
        self.assertEqual(self.driver.find_elements(By.CSS_SELECTOR, "#plan-action-result pre"), [])

    # ---- Importing a measured run (AdminService.ImportBenchmark). ----

    VLLM_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "bench_import",
                             "vllm_llama3-8b_a100_tp1_sharegpt_qps-inf.json")
    VLLM_CITATION = ("vllm-project/vllm benchmarks/results/2024-08-23_18-47-20_vllm_055_nightly_results.json "
                     "@a0a944dacb80ee88e1d2479b7375abfa512cc816")

    def import_file(self, wait, token):
        self.fill("import-token", token)
        before = self.driver.find_elements(By.CSS_SELECTOR, "#import-result > *")
        self.driver.find_element(By.ID, "import-submit").click()
        if before:
            wait.until(EC.staleness_of(before[0]))
        return wait.until(lambda d: d.find_elements(By.ID, "import-summary") or
                          [e for e in d.find_elements(By.CSS_SELECTOR, "#import-form .err") if e.text])

    def test_import_a_vllm_result_then_again_unchanged(self):
        wait = self.open_page()
        # vLLM's nightly row vllm_055_llama8B_tp1_sharegpt_qps_inf (A100-SXM4-80GB, TP1), in
        # benchmark_serving.py's --save-result layout (tests/data/bench_import/README.md).
        Select(self.driver.find_element(By.ID, "import-format")).select_by_value("BENCHMARK_FILE_FORMAT_VLLM")
        self.driver.find_element(By.ID, "import-file").send_keys(os.path.realpath(self.VLLM_FILE))
        Select(self.driver.find_element(By.ID, "import-gpu")).select_by_value("A100-SXM4-80GB")
        self.fill("import-count", 1)
        Select(self.driver.find_element(By.ID, "import-model")).select_by_value("Llama-3-8B")
        self.fill("import-citation", self.VLLM_CITATION)
        self.fill("import-date", "2024-08-23")
        self.assertEqual(self.driver.find_element(By.ID, "import-token").get_attribute("type"), "password")
        # The server's errors at the fields they name: no citation; the file read as another format.
        self.fill("import-citation", " ")
        self.import_file(wait, ServerProcess.ADMIN_TOKEN)
        self.assert_error_next_to("import-citation", wait, "source.citation")
        self.fill("import-citation", self.VLLM_CITATION)
        Select(self.driver.find_element(By.ID, "import-format")).select_by_value("BENCHMARK_FILE_FORMAT_MEGATRON")
        self.import_file(wait, ServerProcess.ADMIN_TOKEN)
        self.assert_error_next_to("import-file", wait, "content:", "Megatron-LM")
        Select(self.driver.find_element(By.ID, "import-format")).select_by_value("BENCHMARK_FILE_FORMAT_VLLM")
        # A wrong token: refused, and the reason sits at the token.
        self.import_file(wait, "not-a-token")
        self.assert_error_next_to("import-token", wait, "unknown token")
        # The admin token: the file's row is written, and shown with its id.
        found = self.import_file(wait, ServerProcess.ADMIN_TOKEN)
        self.assertEqual(found[0].get_attribute("id"), "import-summary", found[0].text)
        written = int(self.driver.find_element(By.ID, "import-written").get_attribute("data-count"))
        self.assertGreaterEqual(written, 1)
        self.assertEqual(self.driver.find_element(By.ID, "import-unchanged").get_attribute("data-count"), "0")
        rows = self.driver.find_elements(By.CSS_SELECTOR, "#import-rows tbody tr")
        self.assertEqual(len(rows), written)
        self.assertIn("A100-SXM4-80GB", rows[0].text)
        # The catalog holds it now: the API lists the same id.
        status, _, raw = http("GET", self.server.base + "/v1/benchmarks?gpu_name=A100-SXM4-80GB&model_name=Llama-3-8B")
        self.assertEqual(status, 200, raw)
        ids = {str(b.get("id")) for b in json.loads(raw).get("benchmarks", [])}
        self.assertIn(rows[0].get_attribute("data-id"), ids)
        # Again: nothing written, every row already held.
        self.import_file(wait, ServerProcess.ADMIN_TOKEN)
        self.assertEqual(self.driver.find_element(By.ID, "import-written").get_attribute("data-count"), "0")
        self.assertEqual(self.driver.find_element(By.ID, "import-unchanged").get_attribute("data-count"), str(written))
        self.screenshot("import", "import")

    def error_text(self, input_id):
        return self.driver.find_element(By.ID, input_id + "-err").text

    def test_errors_sit_at_their_fields_in_their_units_and_clear_on_edit(self):
        wait = self.open_page()
        # A context window error names two fields: serving.prompt_tokens + serving.output_tokens.
        # Llama-2-7B's window is 4096 tokens (Touvron et al. 2023, arXiv:2307.09288, Table 1).
        self.fill("plan-prompt", 4000)
        self.fill("plan-output", 128)
        self.driver.find_element(By.ID, "plan-submit").click()
        self.assert_error_next_to("plan-prompt", wait, "context window")
        output = self.driver.find_element(By.ID, "plan-output")
        self.assertEqual(output.get_attribute("aria-invalid"), "true")
        # Editing either clears both.
        output.send_keys(Keys.BACKSPACE)
        self.assertIsNone(output.get_attribute("aria-invalid"))
        self.assertIsNone(self.driver.find_element(By.ID, "plan-prompt").get_attribute("aria-invalid"))
        self.assertEqual(self.error_text("plan-prompt"), "")
        self.fill("plan-prompt", 512)
        self.fill("plan-output", 128)
        # The per-token target is typed in ms; its range and value are reported in ms.
        self.fill("plan-tpot", -5)
        self.driver.find_element(By.ID, "plan-submit").click()
        err = self.assert_error_next_to("plan-tpot", wait, "got -5 ms", "ms]")
        self.assertNotIn("second", err.text)
        self.assertNotIn("0.005", err.text)
        self.fill("plan-tpot", 50)
        self.assertEqual(self.error_text("plan-tpot"), "")
        # Not a number: said so at the field, and nothing is sent (no "got 0" from the server).
        self.fill("tco-count", "abc")
        self.driver.find_element(By.ID, "tco-submit").click()
        err = self.assert_error_next_to("tco-count", wait, "not a number")
        self.assertNotIn("got 0", err.text)
        self.assertEqual(self.driver.find_element(By.ID, "tco-result").text, "")
        self.fill("tco-count", 8)
        self.assertEqual(self.error_text("tco-count"), "")

    def test_gpu_limit_errors_sit_at_most_gpus(self):
        wait = self.open_page()
        # Llama-3.1-405B in 16-bit weights (810 GB) needs more than 4 GPUs of any catalog type
        # (the largest has 180 GB, B200: NVIDIA DGX B200 datasheet); instances of 8 GPUs
        # exceed a limit of 4 on their own.
        Select(self.driver.find_element(By.ID, "plan-model")).select_by_value("Llama-3.1-405B")
        self.fill("plan-maxgpus", 4)
        self.driver.find_element(By.ID, "plan-submit").click()
        err = self.assert_error_next_to("plan-maxgpus", wait, "\"Most GPUs\" = 4")
        self.assertNotIn("the 0 allowed", err.text)
        # With no limit, the planner's own bound is named as such, not as a limit the caller set.
        self.fill("plan-maxgpus", "")
        self.fill("plan-rps", 3500)
        self.driver.find_element(By.ID, "plan-submit").click()
        err = self.assert_error_next_to("plan-maxgpus", wait, "is blank")
        self.assertNotRegex(err.text, r"more than the \d+ allowed")

    def test_tooltips_show_on_keyboard_focus(self):
        wait = self.open_page()
        self.fill_tco_template()
        submit = self.driver.find_element(By.ID, "tco-submit")
        submit.click()
        be = wait.until(EC.visibility_of_element_located((By.ID, "tco-break-even")))
        tip = self.driver.find_element(By.ID, "tip")
        ActionChains(self.driver).move_to_element(self.driver.find_element(By.ID, "tco-title")).perform()
        self.assertFalse(tip.is_displayed())
        # Tab from the button reaches the first figure; its source shows without a mouse.
        self.driver.execute_script("arguments[0].focus()", submit)
        submit.send_keys(Keys.TAB)
        self.assertEqual(self.driver.switch_to.active_element.get_attribute("id"), "tco-break-even")
        self.assertTrue(tip.is_displayed())
        self.assertEqual(tip.text, be.get_attribute("data-tip"))
        self.assertIn("tip", be.get_attribute("aria-describedby"))
        self.assertEqual(tip.get_attribute("role"), "tooltip")
        self.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
        self.assertFalse(tip.is_displayed())
        # Hover still works: a tornado bar.
        bar = self.driver.find_element(By.CSS_SELECTOR, "#tco-tornado g.bar")
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", bar)
        ActionChains(self.driver).move_to_element(bar.find_element(By.TAG_NAME, "rect")).perform()
        self.assertTrue(tip.is_displayed())
        self.assertEqual(tip.text, bar.get_attribute("data-tip"))

    def open_embed(self, query):
        self.driver.get(self.server.base + "/?" + query)
        wait = WebDriverWait(self.driver, WAIT_S)
        wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true")
        return wait

    def assert_read_only(self, shown):
        for form in self.driver.find_elements(By.TAG_NAME, "form"):
            self.assertFalse(form.is_displayed())
        self.assertFalse(self.driver.find_element(By.TAG_NAME, "header").is_displayed())
        for section in self.driver.find_elements(By.CSS_SELECTOR, "main > section"):
            self.assertEqual(section.is_displayed(), section.get_attribute("id") == shown, section.get_attribute("id"))

    def test_embedded_plan_by_url_shows_the_apis_answer_read_only(self):
        # The README's serving example, with a cache-buster the page ignores.
        wait = self.open_embed("embed=plan&kind=serving&model=Llama-2-7B&prompt=512&output=128&rps=35"
                               "&tpot=50&topk=3&_=1700000000")
        rows = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#plan-options tbody tr.option"))
        self.assertEqual(len(rows), 3)
        answer = self.api("/v1/plan", {"serving": self.SERVING, "top_k": 3, "view": "VIEW_FULL",
                                       "max_rejected": 20, "objective": "OBJECTIVE_CHEAPEST"})
        # Rank 1 as the API has it (ranks 2 and 3 may be folded packagings of one offer).
        self.assertEqual([r.get_attribute("data-rank") for r in rows], ["1", "2", "3"])
        self.assert_row_is(rows[0], answer["options"][0])
        self.assertIsNotNone(self.driver.find_element(By.ID, "plan-frontier"))
        self.assert_read_only("plan")
        # A question the server refuses says why in the view, not at a hidden field.
        self.open_embed("embed=plan&kind=serving&model=Llama-2-7B&prompt=-5")
        error = self.driver.find_element(By.ID, "embed-error")
        self.assertTrue(error.is_displayed())
        self.assertIn("prompt", error.text)

    def test_embedded_tco_scenario_and_fields_by_url(self):
        wait = self.open_embed("embed=tco&scenario=readme-a100")
        be = wait.until(EC.visibility_of_element_located((By.ID, "tco-break-even")))
        # Cash: 250,000 + 5,000 m <= 15,000 m first at m = 25 (README, TCO example).
        self.assertEqual(be.text, "month 25")
        self.assertIn("readme-a100", self.driver.find_element(By.ID, "tco-title").text)
        self.assert_read_only("tco")
        # The same template by its fields gives the same answer.
        wait = self.open_embed("embed=tco&gpu=A100-SXM4-80GB&count=8&horizon=36&capex=250000&power=0&ops=5000"
                               "&rent=flat&rent-month=15000")
        be = wait.until(EC.visibility_of_element_located((By.ID, "tco-break-even")))
        self.assertEqual(be.text, "month 25")
        self.assertEqual(self.driver.find_element(By.ID, "tco-own-total").text, "$430,000")
        self.open_embed("embed=tco&scenario=no-such-scenario")
        self.assertIn("no-such-scenario", self.driver.find_element(By.ID, "embed-error").text)

    def test_layout_uses_a_wide_screen_and_selects_fit(self):
        try:
            for width in (1366, 1920):
                self.driver.set_window_size(width, 1080)
                self.open_page()
                # No select is narrower than its longest option (GPU names are long).
                for sid in ["tco-gpu", "plan-model"]:
                    natural, actual = self.driver.execute_script(
                        "const s = document.getElementById(arguments[0]);"
                        "const c = s.cloneNode(true); c.id = ''; c.style.width = 'auto'; c.style.maxWidth = 'none';"
                        "c.style.position = 'absolute'; s.parentNode.append(c);"
                        "const w = c.getBoundingClientRect().width; c.remove();"
                        "return [w, s.getBoundingClientRect().width];", sid)
                    self.assertGreaterEqual(actual + 0.5, natural, f"{sid} at {width}px")
            # At 1920 px the content goes past the old 1320 px column, with the "why" panel
            # beside the options instead of under them.
            self.plan_serving_example()
            main = self.driver.find_element(By.TAG_NAME, "main").rect
            self.assertGreater(main["width"], 1700)
            table = self.driver.find_element(By.ID, "plan-options").rect
            why = self.driver.find_element(By.ID, "plan-why").rect
            self.assertGreaterEqual(why["x"], table["x"] + table["width"])
            self.assertLess(why["y"], table["y"] + table["height"])
            self.assertGreater(table["width"], 1200)
        finally:
            self.driver.set_window_size(1366, 768)

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
