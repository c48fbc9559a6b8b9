"""What a player buys and what it costs: the NPC's wares (what the game wrote that it
sells, "X sells a ration pack for 4 credits"), the wares a line orders and how many
("i'll take 3 ration packs", "2 loaves and a fish pie"), their total, and an offer
below the price ("I'll give you 8 coins for the dagger").

The words are English's: lemmas by lemminflect, numerals of English. Prices are the
game's; nothing here makes one up."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

from lemminflect import getAllLemmas, getInflection

from npc_brain.lexicon import CORRECTIONS, GENERAL_NOUNS, HAVING, TRADE_VERBS, TRADE_WORDS
from npc_brain.memory.records import MemoryRecord
from npc_brain.mind.talk.answers import content_word
from npc_brain.mind.talk.realise import join_clauses, sentence
from npc_brain.words import (
    AND_SAID,
    COUNTING_WORDS,
    DETERMINERS,
    FOR_SAID,
    FUNCTION_WORDS,
    MODALS,
    NEGATIONS,
    NUMBER_WORDS,
    POSSESSIVES,
    PREPOSITIONS,
    WANTING,
    all_lemmas,
    lower_words,
    names,
    only_a_noun,
    sentences,
    stem,
)


@dataclass(frozen=True)
class Ware:
    """One thing the NPC sells: what it rests on (the memory the game wrote, or the
    game action that sells it), read as item, price and unit."""

    grounds: str  # "Bram Holt sells a horseshoe for 2 coins."
    item: str  # "a loaf of bread"
    price: float
    unit: str  # "coins", "" when none is said
    memory_id: int = 0  # the memory it was read from; 0 for a declared one
    value: str = ""  # a declared one: the option's value ("horseshoe")
    action: str = ""  # a declared one: the name of the action that sells it
    aliases: tuple[str, ...] = ()  # a declared one: what players also call it ("hand axe")

    @property
    def by_measure(self) -> bool:
        """Whether it is counted by the measure it is sold by ("a day's camel hire":
        four days' of it; "hauling for one crate": hauling for six crates)."""
        return "'s" in self.item or " one " in self.item

    @cached_property  # read for each word of each line
    def words(self) -> frozenset[str]:
        """The item's content words as lemmas ("loaf", "bread")."""
        return lemmas_of(self.item)

    @property
    def names(self) -> tuple[str, ...]:
        """What it is called: the item, and the aliases the game declared."""
        return (self.item, *self.aliases)

    @cached_property  # read for each word of each line
    def alias_heads(self) -> frozenset[str]:
        """The last content word of each alias, as its lemma ("axe" of "hand axe")."""
        return frozenset(
            words[-1] for alias in self.aliases if (words := [*map(noun_lemma, _contents(alias))])
        )

    @cached_property  # read for each word of each line
    def all_words(self) -> frozenset[str]:
        """The content words of all its names as lemmas ("hatchet", "hand", "axe")."""
        return frozenset().union(*(lemmas_of(name) for name in self.names))


_SOLD = re.compile(
    r"\bsells?\s+(?P<item>.+?)\s+for\s+(?P<price>\d+)\s*(?P<unit>[A-Za-z]+)?", re.IGNORECASE
)
# English's numerals, for a quantity said in words ("three ration packs").
NUMERALS = {**NUMBER_WORDS, **COUNTING_WORDS, "a": 1, "an": 1}
_SAID = {n: w for w, n in NUMBER_WORDS.items()} | {1: "one"}


def ware(memory: MemoryRecord) -> Ware | None:
    """A memory as a ware, when it says "sells <item> for <number> <unit>"."""
    found = _SOLD.search(memory.description)
    if found is None:
        return None
    item, unit = found["item"].strip(), found["unit"] or ""
    return Ware(memory.description, item, int(found["price"]), unit, memory.memory_id)


def ordered(line: str, wares: Sequence[Ware]) -> list[tuple[int, Ware]]:
    """The wares a line names, each with how many it asks for (1 unless a number comes
    just before it): a word of the line goes to the ware with most of its words. What a
    speaker takes back is not ordered: when the words after its last correction name a
    ware, only they count ("a loaf and... no, actually, just a fish pie")."""
    words = lower_words(line)
    ends = [i + len(c) for i in range(len(words)) for c in CORRECTIONS if _at(words, i, c)]
    if ends and (kept := _named(" ".join(words[max(ends) :]), wares)):
        return kept
    return _named(line, wares)


def _at(words: Sequence[str], i: int, phrase: tuple[str, ...]) -> bool:
    return tuple(words[i : i + len(phrase)]) == phrase


def _named(line: str, wares: Sequence[Ware]) -> list[tuple[int, Ware]]:
    """The wares a line names in order and wants, each with the number said before it
    within its stretch between punctuation ("Three hundred, nets and oars and all" is a
    sum, not three boats)."""
    found: list[tuple[int, Ware]] = []
    for words, i, best in _mentions(line, wares):
        if _negated(words, i):  # "dont need a room"
            continue
        count = _quantity(words, i, best)
        if (at := next((j for j, (_, w) in enumerate(found) if w is best), None)) is None:
            found.append((count, best))
        elif count > found[at][0]:  # "a few lobster lines ... three of your pots"
            found[at] = (count, best)
    return found


def unwanted(line: str, wares: Sequence[Ware]) -> list[Ware]:
    """The wares a line names only to say it does not want them ("dont need a room")."""
    wanted = {id(w) for _, w in _named(line, wares)}
    denied = {id(w): w for words, i, w in _mentions(line, wares) if _negated(words, i)}
    return [w for key, w in denied.items() if key not in wanted]


def wanted_part(line: str, wares: Sequence[Ware]) -> str:
    """The line without its stretches (between punctuation) that say a ware is not
    wanted ("Dont need a pickaxe, just somewhere to bunk for the week": "just somewhere
    to bunk for the week"); the line itself when it has no other."""
    stretches = [s for s in re.split(r"(?<=[,.;:!?])\s+", line) if s.strip()]
    kept = [s for s in stretches if not any(_negated(w, i) for w, i, _ in _mentions(s, wares))]
    return " ".join(kept) if kept and len(kept) < len(stretches) else line


def _mentions(line: str, wares: Sequence[Ware]) -> Iterator[tuple[list[str], int, Ware]]:
    """Each word of the line that names a ware: its stretch's words (between
    punctuation), where in them it is, and the ware with most of its words there."""
    for stretch in line.translate(_PUNCTUATION).split("\n"):
        words = lower_words(stretch)
        lemmas = [noun_lemma(w) if _content(w) else "" for w in words]
        for i, lemma in enumerate(lemmas):
            if not lemma or (i + 1 < len(words) and only_a_noun(words[i + 1])):
                continue  # "your mum's bun recipe" names a recipe, not a bun
            if fits := [w for w in wares if _named_by(lemma, w)]:
                said = set(lemmas)  # most words said, then the ware the word is the label of
                yield (
                    words,
                    i,
                    max(
                        fits,
                        key=lambda w: (len(w.all_words & said), lemma in w.words, -len(w.words)),
                    ),
                )


def _named_by(lemma: str, ware: Ware) -> bool:
    """Whether a word (as its lemma) names a ware: a word of its label, or the last part
    of one as a closed compound ("shoe" of "horseshoe"), or the head of an alias (the
    "arm" of "chrome arm": "chrome" alone may be any implant); as it is or by its stem,
    for a word no dictionary knows ("stims" of "stim")."""
    stemmed = stem(lemma)
    return any(names(lemma, word) or stemmed == stem(word) for word in ware.words) or any(
        lemma == head or stemmed == stem(head) for head in ware.alias_heads
    )


_PUNCTUATION = str.maketrans(dict.fromkeys(",.;:!?", "\n"))


def _negated(words: Sequence[str], i: int) -> bool:
    """Whether the ware at `i` is said not to be wanted: just after "not" ("not the
    ale"), or after a wanting verb that is denied ("dont need a room", "I don't want any
    of the stew"); not in a denied question that offers it ("can't you sell me a
    room?"), nor past a negation of something else ("I'm not hungry, just a room"), nor
    what the speaker lacks ("got an EVA tomorrow and no suit": it wants one)."""
    near, before = words[max(0, i - 2) : i], words[max(0, i - 4) : i]
    denied = [k for k, word in enumerate(before[:-1]) if word.endswith(("n't", "dont"))]
    return any(w in NEGATIONS for w in near) or any(before[k + 1] in WANTING for k in denied)


def _quantity(words: Sequence[str], i: int, ware: Ware) -> int:
    """The number said before the ware's first word at `i` (past its other words, an
    adjective or two, and "of the": "3 ration packs", "two fresh loaves", "six of the
    saffron buns"); 1 when none is."""
    for back in range(i - 1, max(-1, i - QUANTITY_REACH - 1), -1):
        word = words[back]
        if word.isdecimal():
            return int(word)
        if word in NUMERALS:
            return halved(words, back, NUMERALS[word])
        of_the = word == "of" or (word in _OF_THE and back > 0 and words[back - 1] == "of")
        if word in FUNCTION_WORDS and word not in ("a", "an") and not of_the:
            return 1
    return 1


QUANTITY_REACH = (
    6  # words before a ware a number may be ("half a dozen of them yellow festival buns")
)
# "six of the buns", "half a dozen of them buns", "three of your pots"
_OF_THE = DETERMINERS | POSSESSIVES | {"them"}


def party(line: str) -> int:
    """How many a line orders for, counting who it names after "for me and": the number
    it says of them and the speaker ("a round for me n my 2 mates": 3, "one for me and
    one each for my two mates": 3), or one more for "one for ..." ("one fer me an' one
    fer the lad": 2); 1 when it names nobody so."""
    words = lower_words(line)
    at = next(
        (i for i in range(len(words) - 2) if words[i] in FOR_SAID and words[i + 1] == "me"), None
    )
    if at is None or words[at + 2] not in AND_SAID:
        return 1
    rest = words[at + 3 : at + 3 + PARTY_REACH]
    counted = [n for w in rest if (n := _counting(w)) > 1]
    if counted:
        return counted[0] + 1
    return 2 if len(rest) > 1 and rest[0] == "one" and rest[1] in FOR_SAID else 1


PARTY_REACH = 5  # words after "for me and" that may count the others ("one each for my two")


def _counting(word: str) -> int:
    """The number a word says in digits or words, 0 when none."""
    return int(word) if word.isdecimal() else NUMBER_WORDS.get(word, 0)


def halved(words: Sequence[str], i: int, number: int) -> int:
    """The number said at `i`, halved when "half a" comes before it ("half a dozen")."""
    return number // 2 if words[max(0, i - 2) : i] == ["half", "a"] else number


def things_asked(line: str) -> list[tuple[str, ...]]:
    """The things a line of trade names, each as its nouns' lemmas, in order ("Got any
    fish hooks?": ("fish", "hook")): nouns after a determiner, a number or a verb of
    trade or having ("sell dynamite"), and an adjective or two, or in the plural;
    leaving out the words of trading (TRADE_WORDS) and of news in general ("anything
    this week?"). A noun said of something ("30 is robbery") names no thing, nor
    one a modal follows, the subject of what it may do ("a fellow could earn")."""
    found: list[tuple[str, ...]] = []
    run: list[str] = []
    introduced = plural = False
    for word in [*lower_words(line), ""]:
        thing = _content(word) and content_word(word) and word not in GENERAL_NOUNS
        lemmas = getAllLemmas(word) if thing else {}
        noun = "NOUN" in lemmas and not set(lemmas.get("VERB", ())) & TRADE_WORDS
        if noun and (lemma := noun_lemma(word)) not in TRADE_WORDS:
            run.append(lemma)
            plural = word != lemma
            continue
        if run and (introduced or plural) and word not in MODALS:
            found.append(tuple(run))  # not "any way a fellow could earn his supper?"
        run = []
        verbs = set(getAllLemmas(word).get("VERB", ()))
        introduced = (
            (introduced and "ADJ" in lemmas)
            or word in _INTRODUCING
            or word.isdecimal()
            or bool(verbs & (TRADE_VERBS | HAVING))  # "sell dynamite", "got flour"
        )
    return list(dict.fromkeys(found))


# Words that introduce a thing: "a net", "any hooks", "two loaves", "that lantern".
_INTRODUCING = DETERMINERS | NUMBER_WORDS.keys() | {"one"}


def not_sold(line: str, wares: Sequence[Ware]) -> list[str]:
    """The things a line of trade asks for that none of the wares is, as said in the
    plural: "Do you sell boats?" to a net mender -> ["boats"]; [] when the line names
    no thing (the wares' units are no things: "30 credits is robbery"), or one of the
    wares."""
    units = {noun_lemma(w.unit.lower()) for w in wares}
    asked = [a for a in things_asked(line) if not set(a) <= units]
    if not asked or any(set(a) & w.words for a in asked for w in wares):
        return []
    return [" ".join([*a[:-1], _plural_of(a[-1])]) for a in asked]


def lemmas_of(text: str) -> frozenset[str]:
    """A text's content words as noun lemmas ("sells his boats" -> sell, boat)."""
    return frozenset(noun_lemma(w) for w in lower_words(text) if _content(w))


def _plural_of(lemma: str) -> str:
    return (getInflection(lemma, tag="NNS") or (lemma + "s",))[0]


def offered(line: str, wares: Sequence[tuple[int, Ware]]) -> int | None:
    """A price the line offers that is not the asking one ("I'll give you 8 coins for
    the dagger", "30 is robbery. 20?"): a number that is neither a quantity ordered
    nor the ware's price."""
    asked = {w.price for _, w in wares} | {n for n, _ in wares}
    offers = [
        int(w)
        for words in map(lower_words, sentences(line))
        for i, w in enumerate(words)
        if w.isdecimal() and int(w) not in asked and not (i and _labels(words[i - 1]))
    ]
    return offers[-1] if offers else None


def _labels(word: str) -> bool:
    """Whether a word before a number makes it a label, not a sum: a noun ("bay 3",
    "ring 4"), not a word of paying ("for 20", "give you 8", "pay 30")."""
    return content_word(word) and not all_lemmas(word) & (TRADE_VERBS | {"give", "offer"})


def total(orders: Sequence[tuple[int, Ware]]) -> str:
    """What an order comes to: "Three ration packs come to 12 credits.", "Two weeks'
    mooring comes to 20 coins."."""
    things = join_clauses([counted(n, w.item) for n, w in orders])
    units = {w.unit for _, w in orders}
    unit = units.pop() if len(units) == 1 else ""
    # one ware, one of it or counted by its measure ("four days' camel hire comes to",
    # "hauling for six crates comes to")
    single = len(orders) == 1 and (orders[0][0] == 1 or orders[0][1].by_measure)
    verb = "comes" if single else "come"
    return sentence(f"{things} {verb} to {amount(sum(n * w.price for n, w in orders), unit)}")


def price_of(ware: Ware) -> str:
    """A ware's price as said: "An iron dagger is 12 coins.", "Anti-rad pills are 15
    credits.", "A mooring is 10 coins per week."."""
    item, per = _item_and_per(ware.item)
    verb = "are" if _plural(item) else "is"
    return sentence(f"{_with_article(item)} {verb} {amount(ware.price, ware.unit)}{per}")


def catalogue(wares: Sequence[Ware]) -> str:
    """What the NPC has, with prices: "I have an iron dagger for 12 coins and a
    hatchet for 8 coins."."""
    listed = []
    for w in wares:
        item, per = _item_and_per(w.item)
        listed.append(f"{_with_article(item)} for {amount(w.price, w.unit)}{per}")
    return sentence(f"I have {join_clauses(listed)}")


def holding(ware: Ware) -> str:
    """The NPC keeps its price: "It's 12 coins for an iron dagger, and I won't take
    less."."""
    item, per = _item_and_per(ware.item)
    price = amount(ware.price, ware.unit)
    return sentence(f"It's {price}{per} for {_with_article(item)}, and I won't take less")


def _item_and_per(item: str) -> tuple[str, str]:
    """An item without its aside, and what its price is per: "the Gull (fishing boat)"
    -> "the Gull"; "mooring, per week" -> ("mooring", " per week")."""
    bare = item.partition(" (")[0].strip()
    head, _, per = bare.partition(", per ")
    return head.strip(), f" per {per.strip()}" if per else ""


def amount(n: float, unit: str) -> str:
    """A sum with its unit in the right number: "1 coin", "12 coins", "2.5 credits"."""
    if n == 1 and unit:
        unit = (getAllLemmas(unit.lower()).get("NOUN") or (unit,))[0]
    return f"{f'{n:.2f}'.rstrip('0').rstrip('.')} {unit}".strip()


def _plural(item: str) -> bool:
    """Whether an item is named in the plural ("anti-rad pills"), by its head noun."""
    head = _unarticled(item).partition(" of ")[0]
    last = head.split(" ")[-1].lower()
    nouns = getAllLemmas(last).get("NOUN", ())
    return bool(nouns) and last not in nouns


def counted(n: int, item: str) -> str:
    """`item` counted: "a fish pie", "three ration packs", "two loaves of bread",
    "hauling for six crates" (of "hauling for one crate"), "four days' camel hire" (of
    "a day's camel hire")."""
    named = _item_and_per(item)[0]
    if n == 1:
        return _with_article(named)
    head, one, unit = named.partition(" one ")
    if one and unit:  # "hauling for one crate": what is counted is the crate
        return f"{head} {counted(n, unit)}"
    words = _unarticled(named, ("a", "an", "the", "one")).split(" ")
    if (measure := next((i for i, w in enumerate(words) if w.endswith("'s")), None)) is not None:
        # "a day's camel hire": what is counted is the day ("four days' camel hire")
        noun = words[measure].removesuffix("'s")
        plural = (getInflection(noun, tag="NNS") or (noun + "s",))[0]
        words[measure] = plural + ("'" if plural.endswith("s") else "'s")
        return f"{_SAID.get(n, str(n))} {' '.join(words)}"
    # the noun counted is the last before a preposition: "loaves of bread", "rooms for
    # the night"
    # or before an aside ("Gulls, with their nets")
    at = next(
        (i for i, w in enumerate(words) if i and (w.lower() in PREPOSITIONS or w.endswith(","))),
        len(words),
    )
    at += words[at].endswith(",") if at < len(words) else 0
    last, comma = words[at - 1].removesuffix(","), "," * words[at - 1].endswith(",")
    plural = (last,) if _plural(last) else getInflection(last, tag="NNS") or (last + "s",)
    said = " ".join([*words[: at - 1], plural[0] + comma, *words[at:]])
    return f"{_SAID.get(n, str(n))} {said}"


def _with_article(item: str) -> str:
    if _unarticled(item) != item or item[:1].isupper() or _plural(item):
        return item
    return f"{'an' if item[:1].lower() in 'aeiou' else 'a'} {item}"


def _unarticled(item: str, articles: tuple[str, ...] = ("a", "an", "the")) -> str:
    """An item without the article it opens with ("the Gull": "Gull")."""
    first, _, rest = item.partition(" ")
    return rest if rest and first.lower() in articles else item


def _content(word: str) -> bool:
    return len(word) > 2 and not word.isdecimal() and word not in FUNCTION_WORDS


def _contents(text: str) -> list[str]:
    """A text's content words, lowercase, in order."""
    return [w for w in lower_words(text) if _content(w)]


def noun_lemma(word: str) -> str:
    word = word.removesuffix("'s")  # "a day's docking": "day"
    nouns = getAllLemmas(word).get("NOUN", ())
    return nouns[0] if nouns else word
