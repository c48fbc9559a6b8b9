"""The world of the long-memory bench data (bench/long_memory_data.py): Coldwater Reach, a
river-trade town on the Tamsel, its six NPCs and the words its memories are made of.

Templates pick one of each `(a|b|c)` group at random, then fill `{slots}`: `me` (the
NPC's full name), `pos` (his / her), `other` (another NPC's full name), `n` (a small
number). Nothing here comes from the shipped demo town.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Ware:
    """Something an NPC sells: its name in a memory, a short name and a player's words."""

    name: str
    short: str
    para: str
    price: int


@dataclass(frozen=True)
class Theme:
    """What an NPC keeps coming back to: memories that recur, reflections that sum them
    up, and the player's questions whose evidence they are."""

    memories: tuple[str, ...]
    reflections: tuple[str, str]
    questions: tuple[str, str]


@dataclass(frozen=True)
class Npc:
    id: str
    name: str
    pronoun: str  # "he" or "she"
    workplace: str
    wares: tuple[Ware, Ware, Ware]
    chores: tuple[str, ...]
    activities: tuple[str, ...]  # for the morning plan
    themes: tuple[Theme, Theme, Theme]
    flood: tuple[str, str]  # the flood's harm to the NPC, and the day after
    festival: tuple[str, str]  # what the NPC did at the Lantern Float, and a line about it

    @property
    def first(self) -> str:
        return self.name.split()[0]

    @property
    def pos(self) -> str:
        return "his" if self.pronoun == "he" else "her"


TOWN = "Coldwater Reach"
PLACES = (
    "the ferry landing",
    "Halloway's Chandlery",
    "the Drowned Lantern",
    "Coldwater Lock",
    "the weir forge",
    "the willow bank",
    "the fish market",
    "the east quay",
    "the rope walk",
    "the chapel of St. Ebba",
    "the granary",
    "the bakery on Mill Street",
)
CITIES = (
    "Harrowgate",
    "Ostmark",
    "Fennick",
    "Lowmere",
    "Brackenport",
    "Caddow",
    "Sallowby",
    "Vintry",
    "Pellham",
    "Durnhollow",
    "Askerby",
    "Marlstone",
)
FIRST_NAMES = [
    "Aldo",
    "Bettany",
    "Cosmin",
    "Dagny",
    "Edric",
    "Fenna",
    "Gideon",
    "Hester",
    "Ivo",
    "Jessamy",
    "Kasimir",
    "Lenka",
    "Matthias",
    "Nerys",
    "Osric",
    "Petra",
    "Quentin",
    "Rosalind",
    "Silas",
    "Tamsin",
    "Ulric",
    "Verity",
    "Wendel",
    "Yara",
    "Zoltan",
    "Agathe",
    "Barnaby",
    "Cressida",
    "Desmond",
    "Elowen",
    "Florian",
    "Greta",
    "Hamish",
    "Imogen",
    "Jasper",
    "Katrin",
    "Leopold",
    "Mireille",
    "Nikolai",
    "Oona",
    "Perrin",
    "Rhosyn",
    "Severin",
    "Thea",
    "Ugo",
    "Vesna",
    "Warrick",
    "Xanthe",
    "Yorick",
    "Zuzana",
    "Brigida",
    "Casimir",
    "Dorota",
    "Emrys",
    "Fabian",
    "Gisela",
    "Horatio",
    "Ilona",
    "Jovan",
    "Ottilie",
]
SURNAMES = [
    "Szabo",
    "Penhallow",
    "Kettleby",
    "Roost",
    "Marchetti",
    "Dunmore",
    "Fairweather",
    "Gallo",
    "Hartigan",
    "Inglis",
    "Jessop",
    "Kowalczyk",
    "Lamprey",
    "Mottram",
    "Nagy",
    "Oakshott",
    "Pruett",
    "Quarles",
    "Rudd",
    "Sorensen",
    "Thackeray",
    "Upjohn",
    "Vosper",
    "Whitlock",
    "Yelland",
    "Zeller",
    "Abernathy",
    "Blackwood",
    "Dray",
    "Esterhazy",
    "Finchley",
    "Grebe",
    "Hollins",
    "Ives",
    "Jarrow",
    "Kemp",
    "Lisle",
    "Mossop",
    "Northcott",
    "Ormerod",
    "Pagett",
    "Rookwood",
    "Stannard",
    "Tolley",
    "Varley",
    "Wickens",
    "Ashdown",
    "Brophy",
    "Culpepper",
    "Dimmock",
    "Egerton",
    "Fothergill",
    "Gammage",
    "Haskins",
    "Illingworth",
    "Jellicoe",
    "Kitteridge",
    "Lumsden",
    "Meakin",
    "Nettleship",
]
SHIP_WORDS = (
    "Gilded Black Drowsy Scarlet Merry Iron Silver Lucky Proud Weeping Hungry Quiet Crooked "
    "Golden Restless Humble Brave Salt Amber Grey",
    "Eel Marigold Otter Pike Swallow Sparrow Magpie Bittern Lamprey Moorhen Wherry Teal Grebe "
    "Mallard Kingfisher Carp Rook Minnow Plover Tench",
)
# (what a barge brings, how a player says it)
CARGOES = (
    ("salted cod", "dried fish"),
    ("Ostmark slate", "roofing stone"),
    ("juniper gin", "spirits"),
    ("bolts of indigo wool", "blue cloth"),
    ("seed potatoes", "potatoes for planting"),
    ("copper sheeting", "sheet metal"),
    ("bitter oranges", "fruit from the south"),
    ("pig iron", "raw iron"),
    ("quicklime", "lime for building"),
    ("barrels of pitch", "tar for boats"),
    ("saffron", "a costly spice"),
    ("clay pipes", "tobacco pipes"),
    ("whale oil", "lamp fuel"),
    ("oak staves", "wood for barrels"),
    ("beeswax candles", "candles"),
    ("apple brandy", "strong drink"),
    ("millstones", "grinding stones"),
    ("rock salt", "salt"),
    ("hop sacks", "hops for brewing"),
    ("glass panes", "window glass"),
)
TRADES = (
    "wool merchant",
    "spice trader",
    "timber dealer",
    "wine factor",
    "pedlar",
    "grain broker",
    "stone merchant",
    "cloth trader",
)
# (a distinctive item, its short name, a player's words for it, price range in pennies)
GOODS = (
    ("a brass sextant", "sextant", "a navigation instrument", (40, 90)),
    ("a copper kettle", "kettle", "something to boil water in", (8, 20)),
    ("a pair of otter-skin gloves", "gloves", "warm gloves", (10, 25)),
    ("a walnut tiller", "tiller", "a new steering arm for a boat", (18, 40)),
    ("a tin whistle", "whistle", "a little flute", (2, 6)),
    ("a banjo-shaped barometer", "barometer", "a weather glass", (30, 70)),
    ("a horn-handled clasp knife", "clasp knife", "a pocket knife", (6, 15)),
    ("a green wool cloak", "cloak", "a warm cloak", (14, 30)),
    ("a wicker birdcage", "birdcage", "a cage for a bird", (5, 12)),
    ("a carved chess set", "chess set", "a board game", (20, 45)),
    ("a pewter tankard", "tankard", "a drinking mug", (4, 10)),
    ("a brass spyglass", "spyglass", "a telescope", (35, 80)),
    ("a pair of sealskin boots", "sealskin boots", "waterproof boots", (20, 40)),
    ("a painted map of the lower Tamsel", "map", "a river chart", (12, 30)),
    ("an iron skillet", "skillet", "a frying pan", (6, 14)),
    ("a music box with a dancing bear", "music box", "a toy that plays a tune", (25, 60)),
    ("a second-hand fiddle", "fiddle", "a violin", (30, 65)),
    ("a mantel clock", "mantel clock", "a clock for the shelf", (40, 95)),
    ("a lambswool blanket", "blanket", "a warm blanket", (9, 22)),
    ("a ship in a bottle", "ship in a bottle", "an ornament with a boat inside", (7, 18)),
    ("a bone-handled razor", "razor", "something to shave with", (5, 12)),
    ("a cask of pear cider", "pear cider", "a barrel of cider", (15, 35)),
    ("a sack of Caddow barley", "barley", "grain", (6, 14)),
    ("a lantern with red glass", "red lantern", "a coloured lamp", (8, 20)),
)
INJURIES = (
    ("broke a wrist", "hurt an arm"),
    ("twisted an ankle", "hurt a foot"),
    ("cut a hand badly on a fish knife", "cut a hand"),
    ("burned a forearm on a hot kettle", "got burned"),
    ("cracked two ribs", "got hurt falling"),
    ("knocked out a front tooth", "lost a tooth"),
    ("sprained a knee", "hurt a leg"),
)
SURFACES = ("the wet steps", "a mossy plank", "the icy cobbles", "a loose board", "a coil of rope")
# (what another NPC says is true, what the player asks about it)
RUMOURS = (
    ("the watermill at Fennick is up for sale", "Is the mill at Fennick really being sold?"),
    ("the bridge toll at Harrowgate has doubled", "What's the news about the Harrowgate bridge?"),
    ("a wolf was seen near the Sallowby road", "Are there wolves about?"),
    ("the river board means to dredge the east quay", "Are they going to dig out the quay?"),
    ("the baker on Mill Street is ill with a fever", "Who's sick in town?"),
    ("the tannery upstream will close by midsummer", "Is the tannery shutting down?"),
    ("a new stagecoach will run to Ostmark twice a week", "Is there a coach to Ostmark now?"),
    ("the chapel roof needs forty crowns of repairs", "What's wrong with the chapel?"),
    ("a barge of stolen brandy was seized at Lowmere", "What was found on that barge at Lowmere?"),
    ("the Duchess will ride through on her way to Vintry", "Is someone important coming?"),
    ("wages at the rope walk were cut by a penny a day", "Did the rope walk cut wages?"),
    ("the old granary is haunted by a drowned miller", "Is the granary haunted?"),
    ("the price of salt has tripled in Brackenport", "Why is salt so dear?"),
    ("a circus is coming to Pellham in April", "Is there a circus coming?"),
)
# (the visitor's trade, what they asked about, what a player calls it)
VISITORS = (
    ("surveyor", "the depth of the river at the ford", "how deep the river is"),
    ("tax assessor", "the takings of the past year", "money and taxes"),
    ("recruiting sergeant", "young men willing to enlist", "soldiers"),
    ("priest from Askerby", "the old baptism records", "church records"),
    ("tinker", "broken pots to mend", "mending pots"),
    ("physician", "anyone with a cough", "sickness"),
    ("clerk of the river board", "the state of the towpath", "the path along the river"),
    ("horse dealer", "a grey mare gone missing", "a lost horse"),
    ("schoolmistress", "children who cannot read", "teaching children"),
    ("cartographer", "the names of the river bends", "maps"),
)
ANIMALS = (
    ("An otter", "otter", "got into {me}'s bait pail and ate {n} minnows"),
    ("A heron", "heron", "stole a fish straight out of {me}'s basket"),
    ("A stray goat", "goat", "chewed through a rope {me} had left on the quay"),
    ("A fox", "fox", "ran off with a string of sausages from {me}'s window"),
    ("A swan", "swan", "chased {me} along the bank, hissing"),
    ("A runaway pig", "pig", "knocked over {me}'s water butt"),
)
# (a present, its short name, a player's words, why it was given)
GIFTS = (
    ("a jar of heather honey", "honey", "something sweet", "for mending a leaky gutter"),
    ("a knitted scarf in green and gold", "scarf", "something to wear", "for a kindness"),
    ("a pouch of Vintry tobacco", "tobacco", "something to smoke", "for carrying a message"),
    ("a smoked ham", "ham", "meat", "for help with a heavy load"),
    ("a book of sea shanties", "songbook", "a book", "for listening to a sad story"),
    ("a carved wooden heron", "carving", "a little figure", "for finding a lost dog"),
)
FINDS = (
    ("a silver ring engraved with the letters T.M.", "ring", "in the reeds by the willow bank"),
    ("an old Ostmark coin with a hole in it", "coin", "in the mud under the east quay"),
    ("a corked bottle with a letter inside", "bottle", "floating by the ferry landing"),
    ("a rusted anchor", "anchor", "half buried below the weir"),
    ("a leather purse holding nine pennies", "purse", "behind the granary"),
    ("a child's wooden boat", "toy boat", "caught in the lock gates"),
)
WAGERS = (
    "whether the ice would go out before the equinox",
    "who could row to the lock fastest",
    "how many geese would land on the quay by noon",
    "whether the Fennick barge would arrive on time",
    "which of two cats would catch the granary rat first",
)
NOTICES = (
    ("no boat may moor at the east quay overnight", "Can I leave a boat at the quay overnight?"),
    ("dogs must be kept out of the fish market", "Are dogs allowed in the market?"),
    ("every cart crossing the town bridge pays a half-penny", "Is there a charge for carts now?"),
    ("fires on the towpath are forbidden", "Am I allowed to make a fire by the river?"),
    ("the market bell will ring an hour earlier", "Has the market time changed?"),
)
STRANGER_LOOKS = (
    ("a scar across one eyebrow", "a scarred face"),
    ("a parrot on one shoulder", "a bird on his shoulder"),
    ("a patched red coat", "a red coat"),
    ("a silver ear-ring and a limp", "a limp"),
)
COINS = ("Ostmark thalers", "foreign silver", "old Vintry groats", "gold dust")
SANDBARS = ("the Gull Point shoal", "the sandbar below the lock", "Mudlark Bend")
STREETS = ("Tannery Lane", "Mill Street", "Cooper's Row", "Quay Street")
LOST_THINGS = (
    ("{pos} grandfather's pocket watch", "pocket watch"),
    ("the spare key to {workplace}", "spare key"),
    ("{pos} reading spectacles", "spectacles"),
    ("a purse with a week's takings", "purse"),
)
THEFTS = (
    ("a crate of brass fittings", "brass fittings"),
    ("the copper cash box", "cash box"),
    ("a new coil of hemp rope", "hemp rope"),
    ("a side of bacon", "bacon"),
    ("{pos} good oilskin coat", "oilskin coat"),
)
JOBS = (
    "netmaker",
    "cooper",
    "carter",
    "lamplighter",
    "baker's boy",
    "barge hand",
    "ropemaker",
    "grave digger",
    "clerk",
    "shepherd",
)
QUARRELS = (
    "a borrowed ladder",
    "a dog that bit a goose",
    "an unpaid bill",
    "some careless words about {pos} family",
)

TOWN_ROUTINE = (
    "(A thin rain fell|Rain drummed|Drizzle blew) over the rooftops of Coldwater Reach",
    "(A barge|A narrowboat|A timber raft) (drifted|slid|passed) down the Tamsel (towards the lock"
    "|past the quay|in the grey light)",
    "{other} (walked|hurried|wandered) along (the quay|Mill Street|the towpath)",
    "{other} (waved|nodded) to {me} from (across the street|the quay|a doorway)",
    "Gulls (squabbled|screamed|fought) over (fish heads|scraps|a dropped loaf) at the fish market",
    "The bell of St. Ebba (rang|tolled|struck) (the hour|for prayers|twice)",
    "Children (played|chased each other|threw stones) (along the towpath|on the quay|by the "
    "granary)",
    "(Smoke|Woodsmoke|Mist) hung (low|thick|grey) over the (river|water|roofs)",
    "A (carter|drover|pedlar) (led|drove|pushed) (a mule|two oxen|a handcart) up Mill Street",
    "The wind (turned|picked up|dropped) (from the east|off the water|towards evening)",
    "{other} (bought|fetched|carried home) bread from the bakery on Mill Street",
    "(Geese|Ducks|Swans) (paddled|drifted|honked) (near|along|beside) the east quay",
    "{me} (washed|splashed) {pos} face in a (basin|bucket) of cold water",
    "{me} (walked|went) (home|to bed|up the lane) (after supper|late|early)",
    "The (sun|light) (came out|broke through|faded) over the (Tamsel|water meadows|willows)",
)
# An optional end to a routine memory, so that a month of routine is not the same sentences.
TAILS = (
    ", as usual",
    " without hurrying",
    " while humming an old tune",
    " in a light drizzle",
    " with cold fingers",
    " under a grey sky",
    " despite the wind",
    " half asleep",
    " whistling",
    " for a good while",
    " in a hurry",
    " as the bell rang",
    " with a grumble",
    " in good spirits",
    " in a sour mood",
    " for the second time that day",
    " before the rush",
    " in the pale sunshine",
    " with a yawn",
    " while the kettle boiled",
)
SMALL_TALK = (
    "Morning, {o}. (The river's|The Tamsel's) (up|down) (a hand|a foot|a little) since yesterday.",
    "Did you hear the (geese|bells|dogs) (last night|before dawn), {o}?",
    "(Cold|Raw|Damp|Mild) (one|morning|day) today, {o}.",
    "How's (trade|business|work) (treating you|going), {o}?",
    "(Mind|Watch) the (mud|puddles|ice) by the (quay|granary|steps), {o}.",
    "Any (news|gossip|word) from (upriver|downriver|the lock), {o}?",
    "(Got|Have you got) a (minute|moment), {o}? (Just|I only) wanted to say hello.",
    "The bread's (stale|hard|dear) again at the bakery, {o}.",
    "(Off|Heading) (home|out|to work) (already|so soon|early), {o}?",
    "(Lovely|Fine|Grim) (weather|sky|morning) for (the ducks|a walk|hanging washing), {o}.",
)
REPLIES = (
    "(Aye|Yes), (feels|smells|looks) like (rain|frost|a wet week|a dry spell) coming.",
    "(Can't|Cannot) complain, (much|really|{o}). (And you|Yourself|How about you)?",
    "(Same as ever|Slow|Busy enough|Quiet), (thank you|thanks|{o}).",
    "(Not a word|Nothing much|Only the usual|Nothing worth telling), (I'm afraid|{o}|sorry).",
    "(Ha|Heh|Well), (you're not wrong|true enough|tell me about it), {o}.",
    "I'll (be careful|watch my step|keep an eye out), (thanks|ta|{o}).",
    "(Good to see you|Always a pleasure|Likewise), {o}.",
    "(Is that so|Really|You don't say)? (I hadn't noticed|I'll take your word for it|Fancy that).",
)

NPCS = (
    Npc(
        id="odo",
        name="Odo Varga",
        pronoun="he",
        workplace="the ferry landing",
        wares=(
            Ware("a crossing on the ferry", "a crossing", "a ride across the river", 3),
            Ware("taking a cart across", "a cart crossing", "getting a wagon over the water", 8),
            Ware("a night crossing", "a night crossing", "going over after dark", 6),
        ),
        chores=(
            "{me} (ferried|took|carried) {n} passengers across the Tamsel",
            "{me} (bailed|scooped) (rainwater|bilge water) out of the Patient Heron",
            "{me} (greased|oiled|checked) the ferry's (winch|pulley|cable drum)",
            "{me} (coiled|untangled|dried) the (tow rope|spare line|mooring rope) at the landing",
            "{me} (swept|scrubbed) the (deck|benches) of the Patient Heron",
            "{me} (waited|sat) on the landing until the next (passenger|fare) (turned up|came)",
            "{me} (ate|had) (bread and cheese|barley soup|a cold sausage) in the ferry house",
            "{me} (watched|studied) the (current|eddies) (by the pilings|off the landing)",
            "{me} (took|carried) a (flock of sheep|wagon of turnips|miller's cart) over the river",
            "{me} (counted|stacked) the day's (pennies|fares) (in|into) the tin box",
            "{me} (repainted|touched up) the (ferry sign|landing posts|hull numbers)",
            "{me} (chatted|talked) with a passenger about the (weather|road to Harrowgate|wool)",
            "{me} (lit|trimmed) the lamp on the landing post",
        ),
        activities=(
            "run the ferry",
            "grease the winch",
            "mend the mooring lines",
            "tar the hull",
            "sweep the landing",
            "visit the Drowned Lantern",
            "write to Lise",
        ),
        themes=(
            Theme(
                (
                    "{me} (measured|marked) the river's height on the landing post; it was "
                    "(higher|up again|a hand higher) than last week",
                    "{me} (lay awake|could not sleep) listening to the river (rushing|roaring) "
                    "under the landing",
                    "{me} warned a passenger not to lean on the ferry's rail in a strong current",
                ),
                (
                    "Odo Varga has come to fear the Tamsel more each spring; he believes a bad "
                    "flood is coming",
                    "Odo Varga realises that keeping his passengers safe matters more to him "
                    "than the fares",
                ),
                ("Are you worried about the river?", "Why do you keep checking the water?"),
            ),
            Theme(
                (
                    "{me} (reread|read again) Lise's last letter from Harrowgate",
                    "{me} (wondered|worried) whether Lise is eating properly at the clockmaker's",
                    "{me} (put aside|saved) {n} pennies in the tin for Lise's journey home",
                ),
                (
                    "Odo Varga misses his daughter Lise badly since she went to Harrowgate",
                    "Odo Varga is proud that Lise is learning a clockmaker's trade he never could",
                ),
                ("How's your girl getting on in the city?", "Do you miss your family?"),
            ),
            Theme(
                (
                    "{me} found another soft plank in the Patient Heron's hull",
                    "{me} (asked about|priced) new oak planking for the ferry",
                    "{me} (patched|tarred) a (leak|seam) near the Patient Heron's stern",
                ),
                (
                    "Odo Varga knows the Patient Heron has one more year in her at most",
                    "Odo Varga feels the old ferry and he are wearing out together",
                ),
                ("Is your boat in good shape?", "What will you do about the old ferry?"),
            ),
        ),
        flood=(
            "the Patient Heron tore loose from two of her moorings and nearly went over the weir",
            "spent the day after the flood hauling the Patient Heron back and splicing new lines",
        ),
        festival=(
            "carried lantern boats out to mid-river on the Patient Heron free of charge",
            "Never seen so many lanterns on the water. Free crossings all night, mind you.",
        ),
    ),
    Npc(
        id="wren",
        name="Wren Halloway",
        pronoun="she",
        workplace="Halloway's Chandlery",
        wares=(
            Ware("a tin of lamp oil", "lamp oil", "oil for lamps", 5),
            Ware("a fathom of tarred rope", "rope", "rope by the length", 2),
            Ware("a pound of brass nails", "brass nails", "nails", 7),
        ),
        chores=(
            "{me} (stacked|restocked) (coils of rope|tins of lamp oil|boxes of nails) on shelves",
            "{me} (served|helped) {n} customers at the chandlery",
            "{me} (swept|mopped) the floor of Halloway's Chandlery",
            "{me} (wrote up|balanced|checked) the shop's (ledger|accounts|order book)",
            "{me} (weighed out|measured) (tallow|two fathoms of rope|brass tacks) for a customer",
            "{me} (unpacked|opened) a crate of (candles|tar brushes|oilskins) from the carrier",
            "{me} (polished|dusted) the (brass lamps|window|scales) in the shop",
            "{me} (haggled|argued) with a (boatman|carter) over (oakum|caulking cotton)",
            "{me} (ate|had) (a pasty|an apple and some cheese|leek soup) behind the counter",
            "{me} (locked up|shuttered) the chandlery (and counted the till|for the night)",
            "{me} (labelled|priced) (new jars of pine tar|tins of pitch|bundles of wicks)",
            "{me} (chased|shooed) a cat out of the storeroom",
        ),
        activities=(
            "open the shop",
            "restock the shelves",
            "do the accounts",
            "unpack the carrier's crates",
            "call on Ilse",
            "sweep the storeroom",
            "write an order to Brackenport",
        ),
        themes=(
            Theme(
                (
                    "{me} (added up|went over) what the chandlery owes the Brackenport wholesaler",
                    "{me} (worried|fretted) that the (till|takings) were thin again",
                    "{me} (counted|recounted) the coins in the cash drawer twice",
                ),
                (
                    "Wren Halloway fears the chandlery will not survive another slow season",
                    "Wren Halloway has learned to ask bargemen for payment up front",
                ),
                ("How's business been?", "Are you worried about money?"),
            ),
            Theme(
                (
                    "{me} (paced out|looked over) the empty shed by Coldwater Lock",
                    "{me} (sketched|drew) a plan for a little shop beside the lock",
                    "{me} asked Faro Quell who owns the shed by the lock gates",
                ),
                (
                    "Wren Halloway dreams of a second shop beside the lock where bargemen wait",
                    "Wren Halloway thinks the lock trade could save the business",
                ),
                ("Do you have plans to expand?", "What would you do with more money?"),
            ),
            Theme(
                (
                    "{me} (shared|drank) a pot of tea with Ilse Brandt after closing",
                    "{me} (laughed|talked) with Ilse Brandt until the candle burned down",
                    "{me} (brought|carried) a spare lamp to Ilse Brandt at the Drowned Lantern",
                ),
                (
                    "Wren Halloway counts Ilse Brandt as her closest friend in Coldwater Reach",
                    "Wren Halloway trusts Ilse Brandt more than her own sister",
                ),
                ("Who's your closest friend here?", "How well do you get on with Ilse?"),
            ),
        ),
        flood=(
            "a foot of brown water ruined three sacks of oakum in the chandlery's storeroom",
            "spent the day after the flood drying tins and shovelling mud out of the chandlery",
        ),
        festival=(
            "sold 64 paper lanterns from a stall on the quay",
            "Sold every lantern I had by sunset. Should have ordered twice as many.",
        ),
    ),
    Npc(
        id="ilse",
        name="Ilse Brandt",
        pronoun="she",
        workplace="the Drowned Lantern",
        wares=(
            Ware("a room for the night", "a room", "a bed for the night", 12),
            Ware("a mug of dark ale", "ale", "a beer", 2),
            Ware("a slice of eel pie", "eel pie", "something to eat", 3),
        ),
        chores=(
            "{me} (poured|served|drew) (ale|cider|small beer) for {n} (bargemen|drinkers|guests)",
            "{me} (baked|made) (eel pies|barley bread|mutton stew) in the inn's kitchen",
            "{me} (changed|aired) the (sheets|bedding) in the upstairs rooms",
            "{me} (scrubbed|wiped down) the (tables|bar|tankards) in the taproom",
            "{me} (tapped|rolled in) a new (cask|barrel) of (dark ale|cider)",
            "{me} (lit|banked) the fire in the taproom",
            "{me} (peeled|chopped) a (sack|basket) of (potatoes|onions|turnips) for supper",
            "{me} (counted|checked) the (takings|room keys|candles) at the end of the evening",
            "{me} (listened to|laughed at) a bargeman's tale about (a giant pike|a haunted lock)",
            "{me} (rested|sat) (with her leg up|by the fire) for a while",
            "{me} (showed|led) a traveller up to (a room|the back room)",
            "{me} (washed|dried) a (stack|pile) of (bowls|mugs|plates)",
        ),
        activities=(
            "bake the pies",
            "air the rooms",
            "serve the taproom",
            "tap a new cask",
            "go to the fish market",
            "see Wren",
            "scrub the tables",
        ),
        themes=(
            Theme(
                (
                    "{me} (polished|dusted) the old pewter tankard that was Gerrit's",
                    "{me} (thought of|missed) Gerrit when a bargeman sang his favourite song",
                    "{me} (laid|left) flowers on Gerrit's grave behind the chapel of St. Ebba",
                ),
                (
                    "Ilse Brandt still keeps the Drowned Lantern the way Gerrit liked it, four "
                    "years after he died",
                    "Ilse Brandt feels the inn is the last thing she shares with Gerrit",
                ),
                ("Were you ever married?", "Who was Gerrit?"),
            ),
            Theme(
                (
                    "{me} wrote a traveller's tale into her book of stories",
                    "{me} (listened|sat up late listening) to a drover's story about the "
                    "northern passes",
                    "{me} (asked|coaxed) a boatman for the end of his story about the Lowmere "
                    "witch",
                ),
                (
                    "Ilse Brandt loves the stories travellers bring more than the money they spend",
                    "Ilse Brandt hopes to print her book of river tales one day",
                ),
                ("What do you like most about running an inn?", "Do you collect stories?"),
            ),
            Theme(
                (
                    "{me}'s knee ached on the cellar stairs",
                    "{me} (rubbed|wrapped) her swollen knee with (liniment|a warm cloth)",
                    "{me} (asked|let) the pot boy to carry the casks up for her",
                ),
                (
                    "Ilse Brandt worries her bad knee will soon keep her out of the cellar",
                    "Ilse Brandt is too proud to tell anyone how much her knee hurts",
                ),
                ("How's your health?", "Does your leg still trouble you?"),
            ),
        ),
        flood=(
            "the cellar of the Drowned Lantern filled with water and two casks floated away",
            "spent the day after the flood bailing out the cellar of the Drowned Lantern",
        ),
        festival=(
            "served spiced cider to a crowd on the quay until past midnight",
            "My feet are still sore from the festival. Best night's takings all year.",
        ),
    ),
    Npc(
        id="faro",
        name="Faro Quell",
        pronoun="he",
        workplace="Coldwater Lock",
        wares=(
            Ware(
                "the lock toll for a laden barge",
                "the barge toll",
                "taking a loaded barge through the lock",
                10,
            ),
            Ware("a night's mooring above the lock", "the mooring fee", "tying up overnight", 4),
            Ware("a passage chit", "a passage chit", "a permit to pass", 1),
        ),
        chores=(
            "{me} (worked|opened) the (upper|lower) gates of Coldwater Lock for a (barge|raft)",
            "{me} (logged|recorded|entered) {n} (boats|barges|vessels) in the toll ledger",
            "{me} (collected|took) tolls (from|off) (a grain barge|a coal boat|two wherries)",
            "{me} (checked|measured) the water level (on|at) the lock gauge",
            "{me} (oiled|greased) the (paddle gear|gate hinges|balance beams) of the lock",
            "{me} (copied|tidied|ruled) (pages of the ledger|the toll accounts|a register page)",
            "{me} (raked|cleared) (weed|driftwood|rubbish) from the lock (sill|channel|gates)",
            "{me} (ate|had) (a pork pie|bread and dripping|porridge) in the toll house",
            "{me} (wrote|drafted) a (report|note) for the river board about (traffic|tolls)",
            "{me} (walked|patrolled) the towpath (to|as far as) the (weir|sluice|mile post)",
            "{me} (stamped|signed) a (passage chit|toll receipt) for a (bargeman|skipper)",
        ),
        activities=(
            "work the lock",
            "bring the ledger up to date",
            "walk the towpath",
            "oil the gate hinges",
            "write to the river board",
            "clear the sill",
        ),
        themes=(
            Theme(
                (
                    "{me} found a (two-penny|four-penny) error in the toll ledger and corrected it",
                    "{me} (ruled|drew) fresh columns in the ledger because the old ones were "
                    "crooked",
                    "{me} (stayed up|sat up late) until the week's tolls balanced",
                ),
                (
                    "Faro Quell cannot rest while a column of the ledger does not balance",
                    "Faro Quell believes a lock is only as honest as its books",
                ),
                ("What bothers you about your work?", "Why are you so careful with the books?"),
            ),
            Theme(
                (
                    "{me} (polished|rewrote) his letter to the river board asking to be made "
                    "harbourmaster",
                    "{me} (studied|read) the harbour regulations by candlelight",
                    "{me} (watched|envied) the harbourmaster of Fennick giving orders on the quay",
                ),
                (
                    "Faro Quell wants to be harbourmaster of Coldwater Reach before he is thirty",
                    "Faro Quell suspects the river board thinks him too young",
                ),
                ("What are your ambitions?", "Do you want to stay a toll clerk forever?"),
            ),
            Theme(
                (
                    "{me} wrote (a few lines|a verse) of a poem about the river at night",
                    "{me} (hid|tucked) his poems in the bottom drawer of the ledger desk",
                    "{me} (read|murmured) a poem aloud to himself when the lock was empty",
                ),
                (
                    "Faro Quell keeps his poems secret because he fears the bargemen would laugh",
                    "Faro Quell feels most himself when he writes about the river",
                ),
                ("Do you have any hobbies?", "Is there something you do that nobody knows?"),
            ),
        ),
        flood=(
            "the lower gates of Coldwater Lock jammed open with branches and debris",
            "spent the day after the flood freeing the lower gates of the lock with a crowbar",
        ),
        festival=(
            "read out the names of the drowned from the river board's roll",
            "I read all forty-one names without stumbling. My hands shook, though.",
        ),
    ),
    Npc(
        id="marta",
        name="Marta Olsk",
        pronoun="she",
        workplace="the weir forge",
        wares=(
            Ware("a set of four horseshoes", "horseshoes", "shoeing a horse", 16),
            Ware("a boat hook", "a boat hook", "a hook for a boat", 9),
            Ware("a pair of iron hinges", "hinges", "door hinges", 5),
        ),
        chores=(
            "{me} (forged|hammered out) (a boat hook|a set of hinges|{n} horseshoes) at the forge",
            "{me} (pumped|worked) the bellows (until|till) the coals (glowed white|roared)",
            "{me} (quenched|tempered) (a chisel|a blade|a hook) in the water trough",
            "{me} (shod|re-shod) a (carthorse|pony|mule) for a (carter|farmer|miller)",
            "{me} (swept|raked) (ash|clinker|scale) (out of the hearth|from the forge floor)",
            "{me} (showed|taught) Pell how to (draw out a taper|upset a bar|weld a link)",
            "{me} (sharpened|ground) (a scythe|an axe|a set of knives) on the grindstone",
            "{me} (fetched|carried) (coal|charcoal|iron bar) from the (shed|store|yard)",
            "{me} (ate|had) (black bread and onions|a mutton pie|stew) outside the forge",
            "{me} (mended|patched) a (kettle|pot|bucket) for a neighbour",
            "{me} (counted|sorted) (nails|rivets|hinges) into (bins|jars|boxes)",
        ),
        activities=(
            "light the forge",
            "finish the hinges",
            "shoe the carter's horse",
            "teach Pell",
            "sharpen tools",
            "fetch coal",
        ),
        themes=(
            Theme(
                (
                    "{me} threw a hinge with a hairline crack back into the scrap pile",
                    "{me} (reworked|redid) a boat hook because its curve was not true",
                    "{me} (tested|checked) every link of a chain before letting it leave the forge",
                ),
                (
                    "Marta Olsk would rather lose a sale than sell a flawed piece",
                    "Marta Olsk judges people by whether they finish their work properly",
                ),
                ("What makes a good smith?", "Are you proud of your work?"),
            ),
            Theme(
                (
                    "Pell (managed|forged) his first clean weld under {me}'s eye",
                    "{me} scolded Pell for leaving the quench bucket empty",
                    "{me} (praised|thanked) Pell for keeping the fire steady all morning",
                ),
                (
                    "Marta Olsk thinks Pell will make a fine smith if he learns patience",
                    "Marta Olsk sees herself at fifteen when she watches Pell",
                ),
                ("How's your apprentice doing?", "Who is Pell to you?"),
            ),
            Theme(
                (
                    "{me} (patched|glued) the split leather of the old bellows again",
                    "{me} (cursed|swore at) the bellows when they wheezed and lost their wind",
                    "{me} asked the carrier what a new pair of bellows would cost from Ostmark",
                ),
                (
                    "Marta Olsk knows the forge needs new bellows before summer",
                    "Marta Olsk is saving every spare penny for the bellows",
                ),
                ("Does the forge need anything?", "What's wrong with your bellows?"),
            ),
        ),
        flood=(
            "the water put out the forge fire and rusted a rack of new hinges",
            "spent the day after the flood scouring rust off her tools and relighting the forge",
        ),
        festival=(
            "won the hammer-throw contest with a throw of 31 paces",
            "Thirty-one paces! The Blackwood lad never stood a chance.",
        ),
    ),
    Npc(
        id="tobin",
        name="Tobin Reed",
        pronoun="he",
        workplace="the willow bank",
        wares=(
            Ware("a string of smoked eels", "smoked eels", "smoked fish", 6),
            Ware("a pot of live bait", "bait", "worms for fishing", 1),
            Ware("a fresh eel", "a fresh eel", "fresh fish", 2),
        ),
        chores=(
            "{me} (checked|emptied|set) his eel traps along the willow bank",
            "{me} (caught|landed|took) {n} eels (below the weir|in the reed beds)",
            "{me} (mended|patched|repaired) a (net|trap|fyke net) (on the bank|outside his hut)",
            "{me} (gutted|skinned|cleaned) eels (for smoking|for the market|on a board)",
            "{me} (hung|loaded) eels in the smokehouse",
            "{me} (sold|traded) (smoked eels|a string of eels|live bait) at the fish market",
            "{me} (rowed|paddled|poled) his punt (upstream|across|down to the reed beds)",
            "{me} (dug|gathered) (worms|bait|lugworms) (in the mud|by the bank)",
            "{me} (ate|had) (a heel of bread|fried eel|an onion and cheese) sitting in the punt",
            "{me} (dozed|napped|lay) in the (sun|shade) on the willow bank",
            "{me} (whittled|carved) a (float|peg|toy boat) while waiting for a bite",
        ),
        activities=(
            "check the traps",
            "smoke the catch",
            "sell at the fish market",
            "dig bait",
            "mend the nets",
            "visit his mother",
        ),
        themes=(
            Theme(
                (
                    "{me} watched a barge head downriver and wished he were on it",
                    "{me} asked a bargeman how much a deckhand earns on the big river",
                    "{me} (traced|followed) the road to Brackenport on an old map with a finger",
                ),
                (
                    "Tobin Reed feels Coldwater Reach is too small for him and dreams of the big "
                    "river boats",
                    "Tobin Reed is tired of smelling of eels every day of his life",
                ),
                ("Do you want to leave town?", "What do you dream about?"),
            ),
            Theme(
                (
                    "{me} pulled up only {n} eels where he used to catch three times that",
                    "{me} found a dead eel floating belly-up near the tannery outflow",
                    "{me} (moved|shifted) his traps further from the tannery, hoping for more eels",
                ),
                (
                    "Tobin Reed suspects the tannery upstream is poisoning the eels",
                    "Tobin Reed fears there will be no eels left in the Tamsel in ten years",
                ),
                ("Is the fishing good these days?", "Why are there fewer eels?"),
            ),
            Theme(
                (
                    "{me} (brought|carried) (soup|medicine|firewood) to his mother on Tannery Lane",
                    "{me} sat with his mother while she coughed through the night",
                    "{me} (paid|fetched) the herbwife for his mother's cough syrup",
                ),
                (
                    "Tobin Reed cannot leave town while his mother is ill",
                    "Tobin Reed loves his mother more than he ever tells her",
                ),
                ("How's your mother?", "What keeps you here?"),
            ),
        ),
        flood=(
            "the flood swept away five of his eel traps and his punt's oars",
            "spent the day after the flood wading the shallows looking for his lost traps",
        ),
        festival=(
            "floated a lantern for his father and won the punt race against Jory Lisle",
            "Beat Jory by a whole length in the punt race. Floated one for Dad too.",
        ),
    ),
)
