"""The engine's own words on paper (page 1, the rulebook's contents list), looked up by `_()`.

Templates write `{{ _("Contents") }}` with an English message id. Until the message catalogues
exist, `_` falls back to the table below for Chinese editions and to the English id otherwise.
FOR THE CATALOGUE: every entry of ZH_HANS belongs in the zh-Hans message catalogue; once that
is installed (as `_` in the template environment), this table is only the fallback.
"""
from __future__ import annotations

from typing import Callable

ZH_HANS = {
    "Contents": "目录",
    "Rulebook": "规则书",
    "You also need": "你还需要",
    "{n} players": "{n} 人",
    "pages": "页",
    "Plain paper": "普通纸",
    "Booklet: duplex, flip on the short edge": "小册子：双面打印，沿短边翻转",
    "One page a side: duplex, flip on the long edge": "单页：双面打印，沿长边翻转",
    "Fold the stack of sheets in the middle, cover outwards, and staple twice on the fold at the marks.":
        "打印后把整叠纸从中间对折（封面朝外），在折线上按标记处钉两枚订书钉。",
    "Print the pages in order; staple or clip them at the top left.": "按顺序打印这些页面，在左上角装订或夹好。",
    "All player counts": "所有人数",
}


def translator(language: str, installed: Callable[[str], str] | None = None) -> Callable[[str], str]:
    """`_` for an edition: the installed catalogue's when there is one, else the fallback."""
    if installed is not None:
        return installed
    table = ZH_HANS if language.lower().startswith("zh") else {}
    return lambda message: table.get(message, message)


def players_label(n: int, variant: str | None, _: Callable[[str], str]) -> str:
    """A pack's label, e.g. "3 人（独灯局）" / "3 players (solo lantern)"."""
    label = _("{n} players").format(n=n)
    if variant:
        label += f"（{variant}）" if "人" in label else f" ({variant})"
    return label
