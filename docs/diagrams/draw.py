"""Draws the documentation's diagrams as SVG files next to this script (Python only: the
site is built and read offline, with no JavaScript and no external tools).

Run ``python docs/diagrams/draw.py`` after editing a diagram here; the SVG files are
committed, and ``tests/docs/test_docs_diagrams.py`` checks that they are what this script draws.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

HERE = Path(__file__).resolve().parent
FONT = "font-family='DejaVu Sans, Helvetica, Arial, sans-serif' font-size='13'"
LINE = 17  # px per text line
CHAR = 7.4  # px per character (an estimate for the box widths)


class Svg:
    def __init__(self, width: int, height: int, title: str) -> None:
        self.w, self.h, self.parts = width, height, [f"<title>{escape(title)}</title>"]
        self.parts.append(
            "<defs><marker id='a' viewBox='0 0 10 10' refX='10' refY='5' markerWidth='8' "
            "markerHeight='8' orient='auto-start-reverse'><path d='M0,0 L10,5 L0,10 z' "
            "fill='#333'/></marker></defs>")

    def box(self, x: float, y: float, lines: list[str], fill: str = "#eef3fb",
            w: float | None = None, code: bool = False) -> tuple[float, float, float, float]:
        w = w or max(len(s) for s in lines) * CHAR + 20
        h = len(lines) * LINE + 12
        self.parts.append(f"<rect x='{x}' y='{y}' width='{w:.0f}' height='{h}' rx='6' "
                          f"fill='{fill}' stroke='#456'/>")
        if code:  # (left-aligned, as code reads)
            self.text(x + 10, y + 6 + LINE * 0.8, lines)
        else:
            self.text(x + w / 2, y + 6 + LINE * 0.8, lines, anchor="middle")
        return x, y, w, h

    def text(self, x: float, y: float, lines: list[str], anchor: str = "start",
             color: str = "#111") -> None:
        for i, s in enumerate(lines):
            self.parts.append(f"<text x='{x:.0f}' y='{y + i * LINE:.0f}' text-anchor='{anchor}' "
                              f"fill='{color}' xml:space='preserve' {FONT}>{escape(s)}</text>")

    def arrow(self, x1: float, y1: float, x2: float, y2: float, label: str = "",
              dashed: bool = False) -> None:
        dash = " stroke-dasharray='5,4'" if dashed else ""
        self.parts.append(f"<line x1='{x1:.0f}' y1='{y1:.0f}' x2='{x2:.0f}' y2='{y2:.0f}' "
                          f"stroke='#333' stroke-width='1.4' marker-end='url(#a)'{dash}/>")
        if label:
            self.text((x1 + x2) / 2, (y1 + y2) / 2 - 6, [label], anchor="middle", color="#733")

    def cells(self, x: float, y: float, rows: list[list[str]], fills: list[list[str]],
              size: int = 34) -> None:
        for i, row in enumerate(rows):
            for j, v in enumerate(row):
                self.parts.append(
                    f"<rect x='{x + j * size}' y='{y + i * size}' width='{size}' "
                    f"height='{size}' fill='{fills[i][j]}' stroke='#456'/>")
                self.text(x + j * size + size / 2, y + i * size + size / 2 + 5, [v],
                          anchor="middle")

    def render(self) -> str:
        return (f"<svg xmlns='http://www.w3.org/2000/svg' width='{self.w}' height='{self.h}' "
               f"viewBox='0 0 {self.w} {self.h}' role='img'>\n"
               "<rect width='100%' height='100%' fill='white'/>\n"
               + "\n".join(self.parts) + "\n</svg>\n")


def right(b: tuple[float, float, float, float]) -> tuple[float, float]:
    return b[0] + b[2], b[1] + b[3] / 2


def left(b: tuple[float, float, float, float]) -> tuple[float, float]:
    return b[0], b[1] + b[3] / 2


def model() -> Svg:
    """architecture.md: Tensors, views, one Storage, its immutable jax.Array."""
    s = Svg(820, 200, "Tensors and views share one Storage over an immutable jax.Array")
    t1 = s.box(10, 10, ["Tensor x (view None)"])
    t2 = s.box(10, 75, ["Tensor x[1:3] (View: steps, starts)"])
    t3 = s.box(10, 140, ["Tensor x.T (View)"])
    st = s.box(330, 75, ["Storage: array, version,", "exported, trace"], fill="#fdf3e1")
    a = s.box(580, 83, ["jax.Array (immutable,", "replaced on every write)"], fill="#e8f5e9")
    for b in (t1, t2, t3):
        s.arrow(*right(b), *left(st))
    s.arrow(*right(st), *left(a))
    return s


def views() -> Svg:
    """views.md: an owner, a row view and a transpose on one Storage; a write installs a new
    array."""
    s = Svg(840, 260, "x, x[1] and x.T share one Storage; a write makes a new jax.Array")
    x = s.box(10, 10, ["x = jt.zeros((2, 3))", "view: none (the owner)"])
    r = s.box(10, 90, ["r = x[1]", "view: start (1, 0), shape (3,)"])
    t = s.box(10, 175, ["t = x.T", "view: axes (1, 0)"])
    st = s.box(330, 90, ["Storage", "array: jax.Array (immutable)", "version: n"], fill="#fdf3e1")
    a0 = s.box(650, 30, ["jax.Array v0"], fill="#e8f5e9")
    a1 = s.box(650, 170, ["jax.Array v1"], fill="#e8f5e9")
    for b in (x, r, t):
        s.arrow(*right(b), *left(st))
    s.arrow(*right(st), *left(a0))
    s.arrow(*right(st), *left(a1), dashed=True)
    s.text(560, 225, ["r[0] = 5:", "array.at[1, 0].set(5)"], color="#733")
    return s


def element_reads() -> Svg:
    """views.md: an element read is a value; x[i, ...] and slices are views."""
    s = Svg(760, 200, "An element read x[i, j] is a value; x[i, ...] and slices are views")
    white, elem, row = "#ffffff", "#ffd54f", "#b3e5fc"
    s.text(10, 22, ["x (2 x 3)"])
    s.cells(10, 35, [["0", "1", "2"], ["3", "4", "5"]],
            [[white, white, white], [row, row, elem]])
    v = s.box(250, 12, ["x[1], x[1, ...], x[1:2]: views of the blue row", "(Tensors: r[0] = 9 writes x[1, 0])"],
              fill="#e1f5fe")
    e = s.box(250, 82, ["x[1, 2]: the value 5 of the yellow element", "(not a view: nothing written to it reaches x)"],
              fill="#fff8e1")
    s.arrow(112, 86, *left(v))
    s.arrow(112, 86, *left(e))
    s.text(10, 160, ["One integer per axis reads the element's value, as NumPy's x[1, 2] does;",
                     "a key that keeps an axis (a slice, ..., None) gives a view."])
    return s


def jit_call() -> Svg:
    """architecture.md: the hops of a jaxtensor.jit call."""
    names = ["caller", "_jit/_jit (Jitted)", "_jit/_guard", "_core/_storage",
             "compiled plan", "_jit/_trace.Trace"]
    msgs = [(0, 1, ["f(x, i)"]), (1, 2, ["guard of the last plain signature"]),
            (2, 3, ["lock each storage (one global order),", "lend (donate)"]),
            (2, 4, ["plan.fn(arrays..., i)"]),
            (4, 5, ["only when a plan is made: JAX traces", "_body; reads/writes via the Trace"]),
            (4, 2, ["{aux: final values, results,", "check output}"]),
            (2, 1, ["_finish: raise a failed check,", "_install finals, rebuild results"]),
            (2, 3, ["unlock"]), (2, 0, ["results"])]
    s = Svg(1230, 80 + 50 * len(msgs), "A jaxtensor.jit call, hop by hop")
    xs = [100 + i * 205 for i in range(len(names))]
    for x, n in zip(xs, names):
        s.box(x - 85, 8, [n], w=170)
        s.parts.append(f"<line x1='{x}' y1='37' x2='{x}' y2='{s.h - 8}' stroke='#aab' "
                       "stroke-dasharray='3,3'/>")
    for k, (a, b, m) in enumerate(msgs):
        y = 80 + 50 * k
        s.arrow(xs[a], y, xs[b], y, dashed=b < a)
        s.text(min(xs[a], xs[b]) + 16, y - 6 - LINE * (len(m) - 1), m, color="#733")
    return s


def loop_carry() -> Svg:
    """loops.md: the Tensors a fori_loop body captures are threaded through the loop."""
    s = Svg(900, 230, "fori_loop threads the storages its body captures through the loop")
    user = s.box(10, 20, ["x = jt.ones(6); head = x[:3]", "def step(i):", "    x[i] = x[i - 1] * 0.5 + x[i]",
                          "jt.fori_loop(1, 6, step)"], fill="#eef3fb", code=True)
    loop = s.box(370, 10, ["lax.fori_loop(1, 6, body, carry)", "carry = (value of x's Storage,)",
                           "body(i, carry): step(i) on the carried value", "-> the new carry"],
                 fill="#fdf3e1")
    st = s.box(370, 150, ["x's Storage: the final carry is installed once"], fill="#e8f5e9")
    views = s.box(740, 150, ["x, head (views):", "read the new value"], fill="#e1f5fe")
    s.arrow(*right(user), *left(loop), label="captures x")
    s.arrow(loop[0] + loop[2] / 2, loop[1] + loop[3], loop[0] + loop[2] / 2, st[1])
    s.arrow(*right(st), *left(views))
    s.text(10, 160, ["The body's writes are array updates", "on the carry, in place in XLA's loop;",
                     "nothing is written per iteration", "to the caller's Tensors."], color="#733")
    return s


def tiles() -> Svg:
    """index_select.md: the tiled kernel's grid over the output."""
    s = Svg(900, 260, "index_select's tiled kernel: one fori_loop step per output tile")
    colors = ["#b3e5fc", "#c8e6c9", "#ffe0b2", "#f8bbd0"]
    s.text(10, 20, ["x: [6, 4] (dim 0 is gathered)"])
    picked = [["#fff59d" if r in (0, 4, 5) else "#ffffff"] * 4 for r in range(6)]
    s.cells(10, 30, [[f"{r}{c}" for c in "abcd"] for r in range(6)], picked, size=30)
    s.text(200, 140, ["index = [4, 0, 5]"])
    s.text(440, 20, ["out: [3, 4], tile_shape [3, 2]: two tiles"])
    out = [["4a", "4b", "4c", "4d"], ["0a", "0b", "0c", "0d"], ["5a", "5b", "5c", "5d"]]
    fills = [[colors[0], colors[0], colors[1], colors[1]] for _ in range(3)]
    s.cells(440, 30, out, fills, size=40)
    s.text(440, 170, ["step 0: columns a, b (blue); step 1: columns c, d (green);",
                      "each step: dynamic_slice the index part, gather its window of x,",
                      "dynamic_update_slice into the carried output (in place).",
                      "A last tile that does not fit starts at size - tile (overlaps)."])
    s.arrow(135, 110, 435, 90, label="gather rows 4, 0, 5")
    return s


DIAGRAMS = {"model.svg": model, "views.svg": views, "element_reads.svg": element_reads,
            "jit_call.svg": jit_call, "loop_carry.svg": loop_carry, "tiles.svg": tiles}


if __name__ == "__main__":
    for name, make in DIAGRAMS.items():
        (HERE / name).write_text(make().render(), encoding="utf-8")
        print(HERE / name)
