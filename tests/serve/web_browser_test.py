#!/usr/bin/env python3
"""The page of `vzero serve` in a real headless browser (Debian's chromium + chromedriver, driven
by python3-selenium), for each game: the board loads with every playable cell, a legal move played
by two clicks, vzero's reply, an illegal click refused with the engine's message, an analysis
whose candidate moves appear. Screenshots of every board and of the analysis view go to --out
(the build's web-screenshots/), and with --docs also to docs/web/ for docs/web.md.

Run by CTest (label `browser`); exits 77 (skipped) with a message when chromium, chromedriver or
selenium is missing. Only loopback traffic: the server binds 127.0.0.1 on a free port.

Usage: web_browser_test.py --vzero build/vzero --out build/web-screenshots [--docs docs/web]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request

SKIP = 77
# The screenshots docs/web.md shows (--docs writes only these).
DOCS_SHOTS = {"board-chaco-rex.png", "board-chad.png", "board-cuarenta.png",
              "board-portuguese-draughts.png", "analysis-chaco-rex.png", "promotion-cuarenta.png",
              "capture-path-draughts.png"}
GAMES = {
    # variant: playable cells
    "chaco-rex": 85,
    "chad": 144,
    "cuarenta": 40,
    "portuguese-draughts": 32,
}


def find_browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def api(base, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def start_server(vzero, runs):
    process = subprocess.Popen([vzero, "serve", "--host", "127.0.0.1", "--port", "0",
                                "--simulations", "8", "--rate", "1000", "--runs", runs],
                               stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    deadline = time.time() + 30
    while time.time() < deadline:
        line = process.stderr.readline()
        if not line:
            break
        if "http://" in line:
            url = line.split("http://", 1)[1].split("/", 1)[0]
            return process, "http://" + url
    process.kill()
    raise RuntimeError("vzero serve did not announce its address")


class Page:
    def __init__(self, driver, base, out_dir, docs_dir):
        self.driver = driver
        self.base = base
        self.out_dir = out_dir
        self.docs_dir = docs_dir

    def wait(self, condition, what, timeout=60):
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                value = condition()
                if value:
                    return value
            except Exception:  # the page is still changing
                pass
            time.sleep(0.1)
        raise AssertionError("timed out waiting for " + what + "; message: " + self.message())

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def message(self):
        try:
            return self.js("return document.getElementById('message').textContent")
        except Exception:
            return "?"

    def open(self, query, what="page"):
        """Loads the page with the address query `query` and waits until it is ready."""
        self.driver.get(self.base + "/?" + query)
        self.wait(lambda: self.js("return document.body.getAttribute('data-ready')") == "1", what)

    def board_attribute(self, name):
        return self.js("return document.getElementById('board').getAttribute(arguments[0])", name)

    def first_move_text(self):
        """The text of the move list's first entry, or None."""
        return self.js("return document.querySelector('#move-list li') && "
                       "document.querySelector('#move-list li').textContent")

    def back_to_start(self):
        from selenium.webdriver.common.by import By
        self.driver.find_element(By.ID, "nav-first").click()
        self.wait(lambda: self.board_attribute("data-ply") == "0", "back to the start")

    def click_cell(self, name):
        from selenium.webdriver.common.by import By
        self.driver.find_element(By.CSS_SELECTOR, '#board [data-cell="%s"]' % name).click()

    def choices_after(self, source, target, what):
        """Clicks `source` then `target`; returns the moves the choice dialog then offers."""
        self.click_cell(source)
        self.click_cell(target)
        return self.wait(lambda: self.js(
            "return document.getElementById('choice-dialog').hidden ? null : "
            "Array.from(document.querySelectorAll('#choice-options [data-move]'))"
            ".map(b => b.dataset.move)"), what)

    def shot(self, name, element_id=None):
        from selenium.webdriver.common.by import By
        directories = [self.out_dir]
        if self.docs_dir and name in DOCS_SHOTS:
            directories.append(self.docs_dir)
        for directory in directories:
            path = os.path.join(directory, name)
            if element_id:
                self.driver.find_element(By.ID, element_id).screenshot(path)
            else:
                self.driver.save_screenshot(path)


def exercise_game(page, variant, cells):
    base = page.base
    start = time.time()
    page.open("variant=%s&engine=black&simulations=8" % variant, "the page of " + variant)
    drawn = page.js("return document.querySelectorAll('#board [data-cell]').length")
    assert drawn == cells, "%s: %d playable cells drawn, expected %d" % (variant, drawn, cells)
    page.shot("board-%s-start.png" % variant, "board-column")

    # A legal move by two clicks (the first legal move without a promotion choice).
    position = api(base, "/api/position", {"variant": variant})
    move = next(m for m in position["legalMoves"]
                if m["from"] != m["to"] and not m["promotion"] and
                sum(1 for n in position["legalMoves"]
                    if n["from"] == m["from"] and n["to"] == m["to"]) == 1)
    page.click_cell(move["from"])
    page.wait(lambda: page.js("return document.querySelectorAll('#board .target').length") > 0,
              "the targets of " + move["from"])
    page.click_cell(move["to"])
    # vzero answers (8 rollout simulations): two moves in the list, White to move again.
    page.wait(lambda: page.js("return document.querySelectorAll('#move-list li').length") == 2,
              "vzero's reply in " + variant)
    page.wait(lambda: page.js(
        "return document.getElementById('status-line').getAttribute('data-side')") == "white",
              "White to move after the reply")
    first = page.first_move_text()
    assert move["display"] in first, "%s: move list shows %r, expected %s" % (variant, first,
                                                                              move["display"])
    page.shot("board-%s.png" % variant, "board-column")

    # An illegal click: one of White's movable pieces, then a cell it cannot reach.
    moves = page.board_attribute("data-ply")
    assert moves == "2"
    fen = page.board_attribute("data-fen")
    now = api(base, "/api/position", {"variant": variant, "fen": fen})
    legal = now["legalMoves"]
    piece = legal[0]["from"]
    reachable = {m["to"] for m in legal if m["from"] == piece}
    movable = {m["from"] for m in legal}
    all_cells = page.js(
        "return Array.from(document.querySelectorAll('#board [data-cell]')).map(e => e.dataset.cell)")
    bad = next(c for c in all_cells if c not in reachable and c not in movable)
    page.click_cell(piece)
    page.click_cell(bad)
    page.wait(lambda: page.js(
        "return document.getElementById('message').className.includes('error')"),
              "the refusal of %s to %s" % (piece, bad))
    text = page.message()
    assert piece in text and bad in text, "%s: refusal %r does not name the move" % (variant, text)
    assert page.js("return document.querySelectorAll('#move-list li').length") == 2, \
        "an illegal move was played"

    # Analysis: candidate moves appear, with arrows on the board.
    page.driver.find_element("id", "tab-analyse").click()
    page.wait(lambda: page.js("return document.querySelectorAll('#candidates tr.candidate').length") > 0,
              "candidate moves of " + variant)
    page.wait(lambda: page.js("return document.querySelectorAll('#board .arrows > *').length") > 0,
              "analysis arrows of " + variant)
    page.wait(lambda: int(page.js(
        "return document.querySelector('#candidates tr.candidate td:nth-child(2)').textContent")) >= 20,
              "a few visits")
    page.shot("analysis-%s.png" % variant)
    page.driver.find_element("id", "analyse-toggle").click()
    page.driver.find_element("id", "tab-play").click()
    print("%s: ok (%.1f s)" % (variant, time.time() - start), flush=True)


def exercise_flip_and_address(page):
    # A position opened from the address, drawn turned half a turn.
    fen = "W:W10,K30:B14,21"
    page.open("variant=portuguese-draughts&engine=none&flip=1&fen=" + urllib.request.quote(fen))
    shown = page.board_attribute("data-fen")
    assert shown.startswith("W:W10,K30:B14,21") or "K30" in shown, shown
    assert page.board_attribute("data-flipped") == "1"
    # Square 1 lies in White's lower right corner: flipped, it is drawn at the top left.
    corner = page.js("""const b = document.querySelector('#board [data-cell="1"]').getBBox();
                        const c = document.querySelector('#board [data-cell="32"]').getBBox();
                        return [b.x < c.x, b.y < c.y];""")
    assert corner == [True, True], corner
    page.shot("board-portuguese-draughts-flipped.png", "board-column")


def exercise_promotion(page):
    # Cuarenta's optional promotion: d7 to d9 offers five pieces and "no promotion"; d7 itself
    # offers the promotion in place.
    fen = "4/4k/1P2/5/4/5/4/2K2/4 w - 0 1"
    page.open("variant=cuarenta&engine=none&fen=" + urllib.request.quote(fen))
    # A move by dragging: the king from e2 to e4.
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    source = page.driver.find_element(By.CSS_SELECTOR, '#board [data-cell="e2"]')
    target = page.driver.find_element(By.CSS_SELECTOR, '#board [data-cell="e4"]')
    ActionChains(page.driver).drag_and_drop(source, target).perform()
    page.wait(lambda: page.first_move_text() == "1. Ke2-e4", "the king dragged to e4")
    page.back_to_start()
    choices = page.choices_after("d7", "d9", "the promotion choices")
    assert sorted(choices) == sorted(["d7d9", "d7d9c", "d7d9f", "d7d9g", "d7d9v", "d7d9b"]), choices
    page.shot("promotion-cuarenta.png")
    page.driver.find_element(By.CSS_SELECTOR, '#choice-options [data-move="d7d9f"]').click()
    page.wait(lambda: page.first_move_text() == "1. d7-d9=F",
              "the promotion to a frog in the move list")
    page.back_to_start()
    choices = page.choices_after("d7", "d7", "the promotion in place")
    assert choices == ["d7d7c"], choices
    page.driver.find_element(By.ID, "choice-cancel").click()
    assert page.js("return document.querySelectorAll('#move-list li').length") == 1


def exercise_capture_path(page):
    # Two captures from 3 to 19 that take different men: the page asks which path.
    fen = "W:W3:B6,7,14,15"
    page.open("variant=portuguese-draughts&engine=none&fen=" + urllib.request.quote(fen))
    choices = page.choices_after("3", "19", "the capture paths")
    assert sorted(choices) == ["3x10x19", "3x12x19"], choices
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    button = page.driver.find_element(By.CSS_SELECTOR, '#choice-options [data-move="3x12x19"]')
    ActionChains(page.driver).move_to_element(button).perform()
    page.wait(lambda: page.js("return document.querySelectorAll('#board .arrows line').length") == 2,
              "the path drawn")
    page.shot("capture-path-draughts.png")
    button.click()
    page.wait(lambda: page.board_attribute("data-fen").startswith("B:W19:B6,14"),
              "the capture through 12 played")


def exercise_dashboard(page):
    # The training tab lists the runs of --runs and draws the losses of metrics.jsonl.
    page.driver.get(page.base + "/?mode=runs")
    page.wait(lambda: page.js("return document.querySelector('#runs-list [data-run]') !== null"),
              "the run list")
    page.driver.find_element("css selector", '#runs-list [data-run="demo-run"]').click()
    page.wait(lambda: page.js("return document.querySelectorAll('#run-charts svg').length") >= 1,
              "the loss chart")
    page.shot("dashboard.png")


def write_demo_run(directory):
    # A run directory in the layout of vzero train, with made-up numbers (test input only).
    run = os.path.join(directory, "demo-run")
    os.makedirs(run, exist_ok=True)
    with open(os.path.join(run, "metrics.jsonl"), "w") as out:
        for step in range(0, 220, 20):
            loss = 3.0 / (1 + step / 50)
            out.write(json.dumps({"type": "train", "step": step, "loss": loss,
                                  "policy_loss": 0.8 * loss, "value_loss": 0.2 * loss,
                                  "samples_per_second": 900.0}) + "\n")
        out.write(json.dumps({"type": "evaluation", "step": 200, "opponent": "random",
                              "elo": 120.0, "elo_low": 40.0, "elo_high": 200.0, "games": 10,
                              "wins": 7, "draws": 1, "losses": 2, "score": 0.75}) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vzero", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--docs", help="also write the screenshots here (docs/web)")
    args = parser.parse_args()

    browser = find_browser()
    driver_path = shutil.which("chromedriver")
    try:
        from selenium import webdriver
    except ImportError:
        webdriver = None
    if not browser or not driver_path or webdriver is None:
        print("SKIPPED: the browser test needs chromium, chromium-driver and python3-selenium "
              "(scripts/setup.sh installs them)")
        return SKIP

    for directory in [args.out] + ([args.docs] if args.docs else []):
        os.makedirs(directory, exist_ok=True)
    runs = os.path.join(args.out, "runs")
    write_demo_run(runs)
    server, base = start_server(args.vzero, runs)
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1360,940", "--force-device-scale-factor=1",
                 "--no-proxy-server", "--disable-extensions", "--disable-background-networking"):
        options.add_argument(flag)
    from selenium.webdriver.chrome.service import Service
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        page = Page(driver, base, args.out, args.docs)
        for variant, cells in GAMES.items():
            exercise_game(page, variant, cells)
        exercise_flip_and_address(page)
        exercise_promotion(page)
        exercise_capture_path(page)
        exercise_dashboard(page)
        errors = [entry for entry in driver.get_log("browser")
                  if entry.get("level") == "SEVERE" and "favicon" not in entry.get("message", "")
                  and "status of 4" not in entry.get("message", "")]
        assert not errors, "browser console errors: %s" % errors
    finally:
        driver.quit()
        server.terminate()
        server.wait(timeout=30)
    print("screenshots in " + args.out + (" and " + args.docs if args.docs else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
