"""Fail when a notebook is not clean, the exported library is out of sync, an exported line is over 120 characters,
README.md is not the render of nbs/index.ipynb, or the README's figure and caption are not those nbs/images/<FIGURE>.json records
(`make readme-figure` copies them from a report; the main job itself never writes a tracked file).

Works on a copy of the project, so it never changes your working tree (`--write-readme` rewrites README.md)."""
import filecmp, hashlib, json, re, shutil, subprocess, sys, tempfile
from pathlib import Path

root = Path(__file__).resolve().parent.parent
bin_ = Path(sys.executable).parent

def render_readme(nb: Path) -> str:
    ("README.md text: the markdown render of the index notebook, its links to notebooks and images made relative to "
     "the repository.")
    out = subprocess.run([bin_/"jupyter", "nbconvert", "--to", "markdown", "--stdout", str(nb)],
                         check=True, capture_output=True, text=True).stdout
    out = re.sub(r"\]\((?![a-z]+:|/|#)([^)\s]+\.ipynb|images/)", r"](nbs/\1", out)   # notebooks and their images
    return "<!-- generated from nbs/index.ipynb by `make readme`: edit the notebook, not this file -->\n\n" + out.strip() + "\n"

FIGURE = "fig3_counterfactual"   # the README's figure: `make readme-figure` copies it and its caption from a report (pipeline.readme_card)

def with_caption(src: str, caption: str) -> str:
    "The index notebook's cell text with the paragraph after the README's figure made `caption`."
    return re.sub(rf"(\]\(images/{FIGURE}\.png\)\n\n)[^\n]*", lambda m: m.group(1) + caption, src)

def figure_cell(nb: dict) -> dict:
    "The index notebook's cell that shows the README's figure."
    return next(c for c in nb["cells"] if f"](images/{FIGURE}.png)" in "".join(c["source"]))

def figure_problems(nbs: Path) -> list[str]:
    "Where the README's figure or caption is not the one the main job recorded in nbs/images/<FIGURE>.json."
    made, png = json.loads((nbs/"images"/f"{FIGURE}.json").read_text()), nbs/"images"/f"{FIGURE}.png"
    bad = [] if hashlib.sha256(png.read_bytes()).hexdigest() == made["png_sha256"] else [
        f"{png.relative_to(nbs.parent)}: not the figure the main job wrote (make reproduce copies it)"]
    src = "".join(figure_cell(json.loads((nbs/"index.ipynb").read_text()))["source"])
    if src != with_caption(src, made["caption"]):
        bad.append(f"nbs/index.ipynb: the README figure's caption is not the main job's (nbs/images/{FIGURE}.json; "
                   "run make readme)")
    return bad

def write_caption(nbs: Path):
    "Carry the main job's caption of the README's figure into the index notebook."
    index = nbs/"index.ipynb"; nb = json.loads(index.read_text()); c = figure_cell(nb)
    src = with_caption("".join(c["source"]), json.loads((nbs/"images"/f"{FIGURE}.json").read_text())["caption"])
    c["source"] = [l + "\n" for l in src.split("\n")[:-1]] + [src.split("\n")[-1]]
    index.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")

def diff_trees(a: Path, b: Path, rel=""):
    "Relative paths of files that differ between folders a and b (missing on either side counts)."
    cmp, bad = filecmp.dircmp(a, b, ignore=["__pycache__"]), []
    bad += [f"{rel}{f}" for f in cmp.left_only + cmp.right_only + cmp.diff_files]
    bad += [f"{rel}{f} (unreadable)" for f in cmp.funny_files]
    for d in cmp.common_dirs: bad += diff_trees(a/d, b/d, f"{rel}{d}/")
    return bad

def long_lines(nbs: Path, limit=120):
    "'nbs/NB.ipynb cell ID: N characters' for each line of an exported cell over `limit` characters."
    return [f"{nb.relative_to(nbs.parent)} cell {c.get('id')}: a line of {len(l)} characters (at most {limit})"
            for nb in sorted(nbs.rglob("*.ipynb")) for c in json.loads(nb.read_text())["cells"]
            if c["cell_type"] == "code" and re.match(r"#\|\s*export", "".join(c["source"]))
            for l in "".join(c["source"]).splitlines() if len(l) > limit]

def main():
    if "--write-readme" in sys.argv:
        write_caption(root/"nbs"); (root/"README.md").write_text(render_readme(root/"nbs"/"index.ipynb")); return
    problems = []
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        for p in ["pyproject.toml", "nbs", "twentyq"]:
            (shutil.copytree if (root/p).is_dir() else shutil.copy)(root/p, d/p)
        subprocess.run([bin_/"nbdev-clean"], cwd=d, check=True)
        problems += [f"nbs/{f}: not clean (run nbdev-clean)" for f in diff_trees(root/"nbs", d/"nbs") if f.endswith(".ipynb")]
        subprocess.run([bin_/"nbdev-export"], cwd=d, check=True)
        problems += [f"twentyq/{f}: out of sync with the notebooks (run nbdev-export)" for f in diff_trees(root/"twentyq", d/"twentyq")]
    problems += long_lines(root/"nbs") + figure_problems(root/"nbs")
    if (root/"README.md").read_text() != render_readme(root/"nbs"/"index.ipynb"):
        problems.append("README.md: not the render of nbs/index.ipynb (run make readme)")
    for p in problems: print("FAIL", p)
    if problems: sys.exit(1)
    print("notebooks clean, library in sync, exported lines within 120 characters, README rendered from index.ipynb, "
          "its figure the main job's")

if __name__ == "__main__": main()
