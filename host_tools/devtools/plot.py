"""`mpy-et profile --plot`: a profile as bar charts (matplotlib, the `bench` extra)."""


def plot(profile, path, title=None):
    """Write a PNG: time per operator (left, most first) and per instruction in
    execution order (right), each bar coloured by operator and labelled
    with its share of execute().

    Args:
        profile: a host_tools.devtools.profile.Profile.
        path: the .png to write.
        title: first line of the title (default: the target).
    Raises:
        RuntimeError: matplotlib is not installed.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise RuntimeError("--plot needs matplotlib: pip install 'mpy-et[bench]' or pip install matplotlib") from e
    ops = [row["operator"] for row in profile.operators]
    palette = plt.get_cmap("tab10")
    colour = {op: palette(i % 10) for i, op in enumerate(ops)}
    unit = "board instructions" if profile.unit == "instructions" else "us"
    rows = profile.instructions
    height = max(3.0, 0.28 * max(len(ops), len(rows)) + 1.5)
    fig, (left, right) = plt.subplots(1, 2, figsize=(14, height), gridspec_kw={"width_ratios": [1, 1.3]})
    names = [_short(op) for op in ops]
    times = [row["time"] for row in profile.operators]
    left.barh(range(len(ops)), times, color=[colour[op] for op in ops])
    for y, row in enumerate(profile.operators):
        left.text(row["time"], y, " %.1f%%" % (100 * row["share"]), va="center", fontsize=8)
    left.set_xlim(0, max(times + [1]) * 1.18)  # room for the labels
    left.set_yticks(range(len(ops)), names, fontsize=8)
    left.invert_yaxis()
    left.set_xlabel(unit)
    left.set_title("per operator")
    right.barh(range(len(rows)), [row["time"] for row in rows], color=[colour[row["operator"]] for row in rows])
    per = "instr" if profile.unit == "instructions" else "ns"
    for y, row in enumerate(rows):
        if row["share"] >= 0.005:
            cost = ", %.1f %s/MAC" % (row["per_mac"], per) if row["per_mac"] is not None else ""
            right.text(row["time"], y, " %.1f%%%s" % (100 * row["share"], cost), va="center", fontsize=7)
    right.set_xlim(0, max([row["time"] for row in rows] + [1]) * 1.3)
    right.set_yticks(range(len(rows)), ["%d %s" % (row["instruction"], _short(row["operator"])) for row in rows], fontsize=7)
    right.invert_yaxis()
    right.set_xlabel(unit)
    right.set_title("per instruction, in execution order")
    fig.suptitle(
        "%s: execute() %s %s, median of %d runs" % (title or profile.target, "{:,.0f}".format(profile.execute), unit, profile.runs)
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _short(op):
    """ "mpy_et_quant::conv2d.out" -> "q::conv2d", "aten::addmm.out" -> "addmm"."""
    name = op.split("::")[-1]
    if name.endswith(".out"):
        name = name[:-4]
    return ("q::" + name) if op.startswith("mpy_et_quant::") else name
