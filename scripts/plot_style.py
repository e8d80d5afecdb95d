"""Shared matplotlib set-up for the course's plots: no display needed, colour-blind-safe colours."""
import matplotlib

matplotlib.use("Agg")  # draw to files; works on machines without a display

import matplotlib.pyplot as plt  # noqa: E402

# Okabe & Ito's palette: distinguishable with the common colour-vision deficiencies.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]

plt.rcParams.update(
    {
        "figure.dpi": 110,
        "savefig.dpi": 150,
        "font.size": 10,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.prop_cycle": matplotlib.cycler(color=PALETTE),
    }
)


def save(fig, out_dir, name):
    """Writes NAME.png and NAME.svg into OUT_DIR and returns their paths."""
    import os

    os.makedirs(out_dir, exist_ok=True)
    paths = []
    for ext in ("png", "svg"):
        path = os.path.join(out_dir, f"{name}.{ext}")
        fig.savefig(path, bbox_inches="tight")
        paths.append(path)
    plt.close(fig)
    return paths
