"""ICU's MessageFormat output for generated messages, the fixtures MessageTests compares with.

Run by scripts/strings-oracle (PyICU from PyPI, built against the system's ICU). Writes
Fixtures/strings/messages.json: COUNT messages drawn from a grammar of what Trellis' messages use —
text with apostrophe quoting, plain arguments, `number` (default, `integer`, `percent`), `plural`
(offset, `=N`, keywords, `#`), `selectordinal` and `select`, nested — each in a locale whose plural
rules Babel's CLDR and this ICU agree on, with arguments that land on every category, on rounding
ties and on large and negative numbers; and ICU's output for each. Seeded: the same run writes the
same file.
"""
import json
import random
import sys
from decimal import Decimal
from pathlib import Path

import icu
from babel import Locale

ROOT = Path(__file__).resolve().parent.parent
COUNT = 800
LOCALES = ("en de fr es it pt pt_PT nl sv da nb fi pl cs sk ru uk be lt lv sl hr sr ro ga cy mt gd br "
           "ar he fa hi bn mr ta ja zh ko tr el hu is ka mk de_CH en_IN es_MX ar_MA fil kw").split()
KEYWORDS = ["zero", "one", "two", "few", "many"]
WORDS = ["item", "Artikel", "élément", "товар", "عنصر", "項目", "cart", "left", "in stock", "day"]
TEXTS = ["it''s", "don't", "No. '#1'", "'{'literal'}'", "a '{b}' c", "x''y", "'", "rock'n'roll", "100%", "a|b", "Ünïcödé", "a  b", ""]
NUMBERS = ([0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 14, 19, 20, 21, 22, 25, 100, 101, 102, 111, 1000, 1000000, 2000000]
           + [0.5, 1.5, 2.25, 0.1, 1.25, 3.7, 21.1, 100.5, 1.0005, 2.0015, 0.0005, 1234.5678, 12345.5, 1234567.891, 0.3333333, 2.5e-7, 1e21 / 1e5])
SIGNED = NUMBERS + [-1, -2.5, -1234.5, -0.4, -1000000]
PERCENTS = [0, 0.01, 0.005, 0.015, 0.256, 0.5, 1, 1.5, 0.999, 12.345, -0.25]
GENDERS = ["male", "female", "other", "x"]


class Generator:
    def __init__(self, rng):
        self.rng = rng

    def message(self, depth, parent=None):
        pieces = [self.piece(depth, parent) for _ in range(self.rng.randint(1, 3 if depth == 0 else 2))]
        return "".join(pieces)

    def piece(self, depth, parent):
        nested = depth == 0 or (depth == 1 and self.rng.random() < 0.2)
        choices = ["text", "text", "arg", "number"] + (["plural", "plural", "select", "ordinal"] if nested else [])
        if parent in ("plural", "selectordinal"):
            choices += ["pound", "pound"]
        kind = self.rng.choice(choices)
        if kind == "text":
            return self.rng.choice(TEXTS + WORDS) + self.rng.choice(["", " ", ": "])
        if kind == "pound":
            return self.rng.choice(["#", "# ", "'#'", "#'#'"])
        if kind == "arg":
            return self.rng.choice(["{s}", "{ s }", "{x}"])
        if kind == "number":
            return self.rng.choice(["{x, number}", "{x,number,integer}", "{p, number, percent}", "{ n , number }"])
        if kind == "select":
            cases = [f"{g} {{{self.message(depth + 1, 'select')}}}" for g in ("male", "female") if self.rng.random() < 0.8]
            return "{g, select, " + " ".join(cases + [f"other {{{self.message(depth + 1, 'select')}}}"]) + "}"
        name, style = ("o", "selectordinal") if kind == "ordinal" else ("n", "plural")
        offset = f"offset:{self.rng.choice([1, 2])} " if style == "plural" and self.rng.random() < 0.2 else ""
        cases = [f"={v} {{{self.message(depth + 1, style)}}}" for v in (0, 1, 2) if self.rng.random() < 0.25]
        cases += [f"{k} {{{self.message(depth + 1, style)}}}" for k in KEYWORDS if self.rng.random() < 0.5]
        return "{" + f"{name}, {style}, {offset}" + " ".join(cases + [f"other {{{self.message(depth + 1, style)}}}"]) + "}"

    def arguments(self):
        return {"n": self.rng.choice(NUMBERS), "o": self.rng.choice([v for v in NUMBERS if v == int(v)]),
                "x": self.rng.choice(SIGNED), "p": self.rng.choice(PERCENTS), "s": self.rng.choice(WORDS), "g": self.rng.choice(GENDERS)}


def plural_rules_agree(identifier):
    """Whether this ICU and Babel's CLDR give every probe number the same categories."""
    probes = [Decimal(n) for n in list(range(0, 201)) + ["1000000"]]
    icu_cardinal = icu.PluralRules.forLocale(icu.Locale(identifier))
    babel = Locale.parse(identifier)
    return all(icu_cardinal.select(float(n)) == babel.plural_form(n) for n in probes)


def icu_format(identifier, pattern, arguments):
    names = list(arguments)
    values = [icu.Formattable(float(v)) if isinstance(v, (int, float)) else icu.Formattable(v) for v in arguments.values()]
    return icu.MessageFormat(pattern, icu.Locale(identifier)).format(names, values)


def main():
    rng = random.Random(20261203)
    locales = [l for l in LOCALES if plural_rules_agree(l)]
    skipped = sorted(set(LOCALES) - set(locales))
    generator = Generator(rng)
    cases = []
    refused = 0
    while len(cases) < COUNT:
        identifier = rng.choice(locales)
        pattern = generator.message(0)
        arguments = generator.arguments()
        try:
            output = icu_format(identifier, pattern, arguments)
        except icu.ICUError:
            refused += 1  # a lone apostrophe before a brace quotes it: not a message; drawn again
            continue
        cases.append({"locale": identifier.replace("_", "-"), "message": pattern, "arguments": arguments, "output": output})
    fixtures = {"provenance": f"ICU {icu.ICU_VERSION} MessageFormat through PyICU {icu.VERSION}, formatting each message with its arguments "
                              f"(numbers as doubles); scripts/strings-oracle. Locales whose plural rules differ between this ICU and Babel: {skipped}",
                "cases": cases}
    (ROOT / "Fixtures/strings/messages.json").write_text(
        "{\"provenance\": " + json.dumps(fixtures["provenance"]) + ", \"cases\": [\n"
        + ",\n".join(json.dumps(c, ensure_ascii=False) for c in cases) + "\n]}\n")
    print(f"{len(cases)} messages in {len(locales)} locales (not {skipped}); {refused} drawn that ICU refused", file=sys.stderr)


if __name__ == "__main__":
    main()
