"""What a command prints besides its results: messages in its own words, each warning once.

The library's messages speak Python: they name keywords (``complete=True``,
``format=...``), call forms (``evaluate_run(..., setting='trec_eval')``),
functions (``evaluate_run: ...``) and arguments (``metrics names a metric
twice``). :class:`Speaker` rewrites every such remedy into the flag of the
command that shows it, found in the command's own parser (so a flag renamed
there is renamed in the messages), through :data:`KEYWORDS` where the flag is
not named after the keyword, and :data:`PHRASES` for Python advice that no
flag expresses. :class:`Notices` collects a command's warnings and prints each
once, naming the runs it concerns, and words the reports of queries where a
metric is undefined (no relevant document) as one line per cause, every
metric and run in it, naming ``--no-relevant``.
"""

from __future__ import annotations

import argparse
import re
import sys
import warnings
from contextlib import contextmanager

from .._utils.errors import collect_undefined

#: Python keywords whose flag is not named after them: the ``dest`` of each
#: command's flag for the keyword, in order of preference. ``None`` drops an
#: argument named at the start of a message (``results: ...``, the argument
#: of ``compare()``, is the runs themselves on the command line).
KEYWORDS = {
    "metrics": ("metric", "measure"),
    "threshold": ("threshold", "level"),
    "n_resamples": ("permutations",),
    "random_state": ("seed",),
    "setting": ("trec_eval",),
    # The reader's format: --qrels-format or --run-format by the file's kind
    # (common.read_input says which), never evaluate's output --format.
    "format": (),
    "results": None,
}

#: Python advice that no flag expresses, and what the commands say instead.
PHRASES = (
    # A qrels that repeats a document: the command reads a diversity qrels
    # when every metric is a diversity measure.
    (r"is read with read_trec_qrels\(path, diversity=True\) and scored by",
     "is read as one by 'sk-rankmetrics evaluate' when every -m is one of"),
    # A column found by none of its names: a file cannot be told which to use.
    (r"the data frame has (\[[^\]]*\]); name it with \w+=(?:\.\.\.)?",
     r"the file has \1; give the column one of those names"),
    # What a data argument may be in Python (a mapping, a data frame, ...): the
    # flag's help says what file it reads.
    (r"needs (\w+)=\.\.\. \((?:[^()]|\([^()]*\))*\)", r"needs \1=..."),
    (r"the data frame has (\d+) columns that could hold the (\w+): (\[[^\]]*\]); name the "
     r"one to use with \w+=\S+ \(or drop the others\)",
     r"the file has \1 columns that could hold the \2: \3; keep one of them"),
    # Where the names are listed.
    (r"sk_rankmetrics\.metric_names\(\) lists every name",
     "the metric reference of the documentation (docs/metrics.md) lists every name"),
)

#: A value in ``keyword=value``: a quoted string, ``...``, a number, a constant or a list.
_VALUE = (r"""(?:'[^']*'|"[^"]*"|\.\.\.|[-+]?(?:\d[\w.+-]*|inf|nan)|True|False|None"""
          r"""|\[[^\]]*\])""")
#: ``keyword=value`` where a Python call would have it, not inside a metric
#: name (``rbp.p=0.8``, ``P(rel=2)@5``, ``ndcg.1=3,2=9``) nor a phrase such
#: as ``level=gain`` (a word after ``=`` is no value).
_KEYWORD = re.compile(
    rf"(?<![\w.,=\-'\"])(?<!\w\()(?P<kw>[a-z_][a-z0-9_]*)=(?P<value>{_VALUE})?(?![\w(])")


#: The arguments of the public functions that messages name besides those of
#: ``PARAMS`` (see :func:`python_keywords`).
DATA_ARGUMENTS = ("metrics", "qrels", "run", "truth", "items", "popularity", "item_features",
                  "qid", "query", "item", "score", "relevance", "subtopic", "y_true", "y_score",
                  "sample_weight", "results", "systems", "user_ids", "item_ids", "exclude")


def python_keywords():
    """Every Python keyword a library message may name: the parameters of
    ``PARAMS``, the data arguments and :data:`KEYWORDS`."""
    from .._utils.params import PARAMS

    return {k.rpartition(".")[2] for k in PARAMS} | set(DATA_ARGUMENTS) | set(KEYWORDS)


#: Where a message's sentences and clauses end: ". " or "; " before the next.
_CLAUSES = re.compile(r"(?<=[.;]) +(?=[A-Za-z(])")
#: A remark in parentheses that ends a clause (``... (read as trec, ...).``).
_LAST_REMARK = re.compile(r"\s*\((?:[^()]|\([^()]*\))*\)[.;]?$")


def _clauses(text):
    """``text`` cut into its sentences and clauses, never inside parentheses
    (a remark such as ``(read as trec; if it is another format, ...)`` is part
    of the clause it ends)."""
    parts, start, depth, at = [], 0, 0, 0
    for m in _CLAUSES.finditer(text):
        for ch in text[at:m.start()]:
            depth += (ch == "(") - (ch == ")")
        at = m.start()
        if depth <= 0:
            parts.append(text[start:m.start()])
            start = m.end()
    parts.append(text[start:])
    return parts


#: The package's public functions, which library messages name (``evaluate_run:
#: ...``, ``read_trec_qrels(path, ...)``); tests/cli/test_cli_messages.py checks that
#: this is every lower-case name of ``sk_rankmetrics.__all__``.
PUBLIC_FUNCTIONS = (
    "aplt_score", "arp_score", "bpref_score", "cohen_kappa", "compare", "compare_estimators",
    "compare_qrels", "coverage_score", "cumulative_gain_score", "dcg_score",
    "detectable_difference", "entropy_score", "err_score", "evaluate", "evaluate_embeddings",
    "evaluate_ranked", "evaluate_run", "f1_at_k_score", "fleiss_kappa", "fuse", "get_scorer",
    "get_scorer_names", "get_scorers", "gini_score", "hit_rate_score", "ild_score",
    "kendall_tau", "krippendorff_alpha", "leaderboard", "make_eval_metric",
    "make_ranking_scorer", "mean_average_precision_score", "metric_names", "ndcg_score",
    "novelty_score", "optimize_fusion", "personalization_score", "precision_at_k_score",
    "qrels_from_frame",
    "r_precision_score", "rbo", "rbp_score", "read_qrels", "read_run", "read_trec_qrels",
    "read_trec_run", "recall_at_k_score", "reciprocal_rank_score", "run_from_frame",
    "serendipity_score", "tau_ap", "topics_needed", "weighted_tau", "write_trec_run",
)


def _public_functions():
    return sorted(PUBLIC_FUNCTIONS, key=len, reverse=True)  # the longest name matches first


class Speaker:
    """Rewrites library messages into the words of one command (its parser's flags).

    ``aliases`` maps a keyword to the ``dest`` of its flag where the context
    decides (``format`` is ``--run-format`` for a run file).
    """

    def __init__(self, parser, aliases=None):
        self.actions = {a.dest: a for a in getattr(parser, "_actions", ())
                        if a.option_strings}
        self.aliases = dict(aliases or {})
        funcs = "|".join(map(re.escape, _public_functions()))
        #: ``(... in evaluate_run and evaluate_ranked)``: where a keyword goes in Python.
        self._where = re.compile(rf"\s*\([^()]*\bin (?:{funcs})\b[^()]*\)")
        #: ``evaluate_run(..., setting='trec_eval')``
        self._call = re.compile(rf"\b(?:{funcs})\(\.\.\., (?P<kw>[a-z_]+)=(?P<value>{_VALUE})\)")
        #: ``evaluate_run``, ``compare(``: a Python function, named or called.
        named = "|".join(re.escape(f) for f in _public_functions() if "_" in f)
        self._called = re.compile(rf"\b(?:(?:{funcs})\(|(?:{named})\b)")
        #: ``evaluate_run: ``, the function that raised.
        self._prefix = re.compile(rf"(?<![\w'\"])(?:{funcs}): ")
        #: ``(ignore_ties=True takes them in the order of the sort)``
        self._aside = re.compile(r"\s*(?<![\w(])\((?P<body>[^()]*)\)")
        self._subject = re.compile(r"(?:^|(?<=\x00))(?P<kw>[a-z_][a-z0-9_]*)(?P<colon>:?) ")
        self._phrases = [(re.compile(p), r) for p, r in PHRASES]
        self.keywords = python_keywords()

    def action(self, keyword):
        """The parser's action for a Python keyword, or None (no flag)."""
        dests = self.aliases.get(keyword, KEYWORDS.get(keyword, (keyword,)))
        for dest in dests or ():
            if dest in self.actions:
                return self.actions[dest]
        return None

    def flag(self, keyword, value=None):
        """How the command says ``keyword=value`` (None: it has no flag for it)."""
        action = self.action(keyword)
        if action is None:
            return None
        flag = action.option_strings[0]
        if isinstance(action, argparse._StoreTrueAction):
            # complete=True is -c; setting='trec_eval' is --trec-eval
            on = value in (None, "True", "...", "'trec_eval'", '"trec_eval"')
            return flag if on else f"no {flag}"
        if value in (None, "..."):  # a flag with choices: the message lists them
            return flag if action.choices else f"{flag} {action.metavar or action.dest.upper()}"
        return f"{flag} {value.strip(chr(39) + chr(34))}"

    def speak(self, text):
        """``text`` with every Python remedy said by the command's flag, and the
        advice it has no flag for left out."""
        text = str(text)
        for pattern, repl in self._phrases:
            text = pattern.sub(repl, text)
        text = self._where.sub("", text)
        text = self._call.sub(lambda m: self.flag(m["kw"], m["value"]) or m[0], text)
        text = self._prefix.sub("\x00", text)
        text = self._subject.sub(self._argument, text).replace("\x00", "")
        text = self._aside.sub(self._remark, text)
        text = _KEYWORD.sub(self._keyword, text)
        # Advice the command has no flag for (a keyword or a call left in a
        # sentence after the first): dropped, the statement of the error kept.
        parts = _clauses(text)
        kept, dropped = [parts[0]], False
        for part in parts[1:]:
            if not self.python(part):
                kept.append(part)
                continue
            dropped = True
            # The advice goes; a remark that ends it and names no keyword (what
            # the file was read as) stays, with the clause before it.
            remark = _LAST_REMARK.search(part)
            if remark and not self.python(remark[0]):
                kept[-1] = kept[-1].rstrip(".;") + " " + remark[0].strip()
        if dropped and kept[-1].endswith(";"):
            kept[-1] = kept[-1][:-1] + "."
        return " ".join(kept)

    def _argument(self, m):
        """An argument at the start of a message: ``metrics names ...`` -> ``-m names ...``."""
        if m["kw"] not in KEYWORDS:
            return m[0]
        if KEYWORDS[m["kw"]] is None:
            return "" if m["colon"] else m[0]
        action = self.action(m["kw"])
        return m[0] if action is None else action.option_strings[0] + " "

    def _remark(self, m):
        """A remark in parentheses on a keyword the command has no flag for: dropped."""
        return "" if any(k["kw"] in self.keywords and self.action(k["kw"]) is None
                         for k in _KEYWORD.finditer(m["body"])) else m[0]

    def _keyword(self, m):
        flag = self.flag(m["kw"], m["value"]) if m["kw"] in self.keywords else None
        return flag or m[0]

    def python(self, text):
        """Whether ``text`` names a Python keyword (``ignore_ties=True``) or
        function (``evaluate_run``, ``read_trec_qrels(...)``)."""
        return (any(m["kw"] in self.keywords for m in _KEYWORD.finditer(text))
                or bool(self._called.search(text)))


class Parser(argparse.ArgumentParser):
    """argparse's parser, whose errors (those of the argument types too, which
    pass on library messages about a metric name) name its own flags."""

    def error(self, message):
        super().error(Speaker(self).speak(message))


def _joined(names):
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


class Notices:
    """A command's warnings, gathered while it runs and printed once each.

    :meth:`collect` gathers the warnings of a block (those of one run file
    with ``run=path``); :meth:`lines` words them: each text once, after the
    runs it concerns when several runs are scored (all runs: no names), and
    the reports of undefined values (:class:`~sk_rankmetrics._utils.errors.UndefinedRows`)
    grouped by cause, one line naming every metric and run in it.
    """

    def __init__(self, speaker, runs=()):
        self.speaker = speaker
        self.runs = list(runs)
        self.texts = {}  # text -> [run or None]
        self.undefined = {}  # (n, total, unit, why, skipped_all) -> ({label}, [run or None])
        self._open = []  # the blocks being gathered: [caught, reports, run], outermost first

    def _take(self):
        """Move what the open blocks gathered so far into :attr:`texts` and
        :attr:`undefined` (so that the order of arrival is kept)."""
        for block in self._open:
            caught, reports, run = block
            for w in caught:
                text = " ".join(self.speaker.speak(w.message).split())
                self.texts.setdefault(text, []).append(run)
            for r in reports:
                labels, runs = self.undefined.setdefault(
                    (r.n, r.total, r.unit, r.why, r.skipped_all), ({}, []))
                labels[r.label] = None
                runs.append(run)
            del caught[:], reports[:]

    @contextmanager
    def collect(self, run=None):
        """Gather the warnings and undefined-value reports of the block, as
        those of the run file ``run`` (None: of no run in particular)."""
        self._take()
        with warnings.catch_warnings(record=True) as caught, collect_undefined() as reports:
            self._open.append([caught, reports, run])
            try:
                yield
            finally:
                self._take()
                self._open.pop()

    def _prefix(self, runs):
        """``a.txt, b.txt: ``: the runs a warning concerns, when several runs are
        scored (none for a warning about no run in particular)."""
        named = list(dict.fromkeys(r for r in runs if r is not None))
        if None in runs or len(self.runs) < 2:
            return ""
        if len(named) <= 3:
            return ", ".join(named) + ": "
        some = "all" if len(named) == len(self.runs) else f"{len(named)} of"
        return f"{some} {len(self.runs)} runs ({', '.join(named[:3])}, ...): "

    def lines(self):
        out = [self._prefix(runs) + text for text, runs in self.texts.items()]
        for (n, total, unit, why, skipped_all), (labels, runs) in self.undefined.items():
            unit = "queries" if unit == "rows" else unit
            one = {"queries": "query"}.get(unit, unit[:-1])
            names = _joined(list(labels))
            if skipped_all:
                text = (f"{names}: every {one} was left out (all {unit} {why}: --no-relevant "
                        "skip); the mean is NaN.")
            else:
                it, its = ("it", "its") if n == 1 else ("them", "their")
                verb = "scores" if len(labels) == 1 else "score"
                text = (f"{n} of {total} {unit} {why}: {names} {verb} {it} 0, counted in the "
                        f"mean. Choose with --no-relevant: skip leaves {it} out of the mean; a "
                        f"number (0, 1 or nan) is {its} score, without this warning.")
            out.append(self._prefix(runs) + text)
        return out

    def flush(self, stream=None):
        """Print the warnings gathered so far, one line each, and forget them."""
        stream = sys.stderr if stream is None else stream
        self._take()
        for line in self.lines():
            stream.write(f"sk-rankmetrics: warning: {line}\n")
        self.texts.clear()
        self.undefined.clear()
