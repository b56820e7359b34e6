#!/usr/bin/env python3
"""The page of `vzero serve` in a real headless browser (Debian's chromium + chromedriver, driven
by python3-selenium), for each game: the board loads with every playable cell, a legal move played
by two clicks, vzero's reply, an illegal click refused with the engine's message, an analysis
whose candidate moves appear, each on one line. In each of the window sizes of VIEWPORTS every
cell, the main buttons and the piece legend (the game's own names) lie in view; Flip board turns
the evaluation bar with the board; draughts has its square numbers and no rank numbers; a link to
the position keeps vzero's side and budget. Screenshots of every board and of the analysis view
go to --out (the build's web-screenshots/), and with --docs also to docs/web/ for docs/web.md.

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
              "capture-path-draughts.png", "fit-chaco-rex-390x844.png"}
GAMES = {
    # variant: playable cells
    "chaco-rex": 85,
    "chad": 144,
    "cuarenta": 40,
    "portuguese-draughts": 32,
}
# The legend's names, in the games' own words (shared/rules/*.md: Chaco Rex's Rege, Dama, Turre,
# Bispo, Cavallo, Pedon; Cuarenta's vao, camel, frog, guard), in the order of the pieces.
LEGENDS = {
    "chaco-rex": ["Rege (king)", "Dama (queen)", "Turre (rook)", "Bispo (bishop)",
                  "Cavallo (knight)", "Pedon (pawn)"],
    "chad": ["king", "queen", "rook"],
    "cuarenta": ["king", "bishop", "vao", "camel", "frog", "guard", "pawn"],
    "portuguese-draughts": ["man", "king"],
}
# Window sizes (CSS pixels) in which the board and its controls must be in view without
# scrolling: the common laptop sizes, a full-HD screen and a phone held upright.
VIEWPORTS = [(1280, 720, False), (1440, 760, False), (1920, 1080, False), (390, 844, True)]
# The window of the other steps and of the screenshots.
WINDOW = (1280, 720)
MAIN_BUTTONS = ["new-game", "flip", "undo", "engine-move"]


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

    def set_viewport(self, width, height, mobile=False):
        """Makes the page's viewport `width` x `height` CSS pixels (a phone's with `mobile`)."""
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})

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
    # Every cell of the candidate table on one line: the text of each cell lies in a single line
    # box, and each row is as high as the header row.
    wrapped = page.js("""
        const rows = Array.from(document.querySelectorAll('#candidates tr.candidate'));
        const height = (el) => el.getBoundingClientRect().height;
        const header = height(document.querySelector('#candidates thead tr'));
        const out = [];
        for (const tr of rows) {
          if (Math.abs(height(tr) - header) > 1)
            out.push(tr.dataset.move + ': row ' + height(tr) + ' px high, header ' + header);
          for (const td of tr.cells) {
            const range = document.createRange();
            range.selectNodeContents(td);
            const tops = new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top)));
            if (tops.size > 1)
              out.push(tr.dataset.move + ': "' + td.textContent + '" on ' + tops.size + ' lines');
          }
        }
        return out;""")
    assert not wrapped, "%s: the candidate table wraps: %s" % (variant, wrapped)
    page.shot("analysis-%s.png" % variant)
    page.driver.find_element("id", "analyse-toggle").click()
    page.driver.find_element("id", "tab-play").click()
    print("%s: ok (%.1f s)" % (variant, time.time() - start), flush=True)


def layout(page):
    """The layout at the top of the page: [viewport size, what of the cells, MAIN_BUTTONS and
    legend lies out of view, the page's scroll width, the legend's names, the board's size]."""
    page.js("window.scrollTo(0, 0)")
    return page.js("""
        const W = window.innerWidth, H = window.innerHeight, out = [];
        const check = (what, el) => {
          const r = el.getBoundingClientRect();
          if (r.width === 0 || r.left < 0 || r.top < 0 || r.right > W || r.bottom > H)
            out.push(what + ' at ' + [r.left, r.top, r.right, r.bottom].map(Math.round));
        };
        for (const e of document.querySelectorAll('#board [data-cell]'))
          check('cell ' + e.dataset.cell, e);
        for (const id of arguments[0]) check(id, document.getElementById(id));
        const items = Array.from(document.querySelectorAll('#legend .legend-item'));
        items.forEach((e) => check('legend ' + e.dataset.piece, e));
        const b = document.getElementById('board').getBoundingClientRect();
        return [[W, H], out, document.documentElement.scrollWidth,
                items.map((e) => e.querySelector(':scope > span').textContent),
                [b.width, b.height]];""", MAIN_BUTTONS)


def exercise_fit(page):
    """In each window size of VIEWPORTS, each game's cells, main buttons and legend in view."""
    for width, height, mobile in VIEWPORTS:
        page.set_viewport(width, height, mobile)
        for variant in GAMES:
            page.open("variant=%s&engine=none" % variant, "%s at %dx%d" % (variant, width, height))
            size, outside, scroll_width, legend, board = layout(page)
            where = "%s at %dx%d" % (variant, width, height)
            assert size == [width, height], "%s: the viewport is %s" % (where, size)
            assert not outside, "%s: out of view: %s" % (where, outside[:8])
            assert scroll_width <= width, "%s: the page is %d px wide" % (where, scroll_width)
            assert legend == LEGENDS[variant], "%s: legend %s" % (where, legend)
            # In view by being large, not by shrinking away: the board's longer side at least
            # 0.6 of the window's shorter side (a phone's width, a laptop's height).
            assert max(board) >= 0.6 * min(width, height), "%s: the board is only %s px" % (
                where, board)
            page.shot("fit-%s-%dx%d.png" % (variant, width, height))
    # A window made smaller after the page loaded: the board follows it.
    page.set_viewport(1920, 1080)
    page.open("variant=chad&engine=none")
    page.set_viewport(*WINDOW)
    page.wait(lambda: not layout(page)[1], "the board fitted to %dx%d after a resize" % WINDOW,
              timeout=5)


def exercise_eval_bar_flip(page):
    """Flip board turns the evaluation bar too: White's share at White's end of the board."""
    from selenium.webdriver.common.by import By
    page.open("variant=chad&engine=none")

    def white_end():
        bar, fill = page.js("""
            const box = (id) => document.getElementById(id).getBoundingClientRect();
            const b = box('eval-bar'), f = box('eval-fill');
            return [[b.top, b.bottom], [f.top, f.bottom]];""")
        assert fill[1] - fill[0] > 4, "the evaluation bar's fill is %s of %s" % (fill, bar)
        at_top = abs(fill[0] - bar[0]) <= 2 and fill[1] < bar[1] - 2
        at_bottom = abs(fill[1] - bar[1]) <= 2 and fill[0] > bar[0] + 2
        assert at_top != at_bottom, "the fill %s of the bar %s is at neither end" % (fill, bar)
        return "top" if at_top else "bottom"

    def white_rank_end():
        return page.js("""
            const y = (c) => document.querySelector('#board [data-cell="' + c + '"]')
                                 .getBoundingClientRect().top;
            return y('a1') > y('a12') ? 'bottom' : 'top';""")

    assert white_end() == "bottom" and white_rank_end() == "bottom"
    page.driver.find_element(By.ID, "flip").click()
    page.wait(lambda: page.board_attribute("data-flipped") == "1", "the board flipped")
    assert white_rank_end() == "top"
    assert white_end() == "top", "Flip board left White's share of the evaluation bar at the bottom"
    page.driver.find_element(By.ID, "flip").click()
    page.wait(lambda: page.board_attribute("data-flipped") == "0", "the board turned back")
    assert white_end() == "bottom"


def exercise_draughts_labels(page):
    """Draughts: the square numbers 1-32 and no rank numbers 1-8 beside them."""
    page.open("variant=portuguese-draughts&engine=none")
    coords, numbers = page.js("""
        const texts = (q) => Array.from(document.querySelectorAll(q)).map((t) => t.textContent);
        return [texts('#board .coords text'), texts('#board .square-numbers text')];""")
    ranks = [t for t in coords if t in [str(n) for n in range(1, 9)]]
    assert not ranks, "draughts shows rank numbers %s beside its square numbers" % ranks
    assert sorted(numbers, key=int) == [str(n) for n in range(1, 33)], numbers
    page.open("variant=chad&engine=none")  # the chess-like boards keep theirs
    coords = page.js("return Array.from(document.querySelectorAll('#board .coords text'))"
                     ".map((t) => t.textContent)")
    assert "12" in coords and "l" in coords, coords


def exercise_link(page):
    """A link to the position (the Link button's) opens the same game with vzero's side and
    budget in the controls."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    first = api(page.base, "/api/position", {"variant": "chad"})["legalMoves"][0]["move"]
    for engine, kind, budget in [("none", "seconds", "3"), ("white", "simulations", "37")]:
        page.open("variant=chad&engine=none&moves=" + first)
        Select(page.driver.find_element(By.ID, "engine-color")).select_by_value(engine)
        Select(page.driver.find_element(By.ID, "budget-kind")).select_by_value(kind)
        field = page.driver.find_element(By.ID, "budget")
        field.clear()
        field.send_keys(budget)
        page.driver.find_element(By.ID, "copy-link").click()
        text = page.message()
        assert text.startswith("Link: http"), text
        link = text[len("Link: "):]
        page.driver.get("about:blank")
        page.driver.get(link)
        page.wait(lambda: page.js("return document.body.getAttribute('data-ready')") == "1", link)
        shown = page.js("return ['engine-color', 'budget-kind', 'budget']"
                        ".map((id) => document.getElementById(id).value)")
        assert shown == [engine, kind, budget], "%s opens with %s, expected %s" % (
            link, shown, [engine, kind, budget])
        assert page.first_move_text() is not None, link + " lost the moves"


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
                 "--window-size=%d,%d" % WINDOW, "--force-device-scale-factor=1",
                 "--no-proxy-server", "--disable-extensions", "--disable-background-networking"):
        options.add_argument(flag)
    from selenium.webdriver.chrome.service import Service
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        page = Page(driver, base, args.out, args.docs)
        page.set_viewport(*WINDOW)
        for variant, cells in GAMES.items():
            exercise_game(page, variant, cells)
        exercise_fit(page)
        exercise_eval_bar_flip(page)
        exercise_draughts_labels(page)
        exercise_link(page)
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
