"""The realiser: facts and persona fragments said from the speaker's point of view, in three
settings (a fantasy village, a space station, a fishing village)."""

import pytest

from npc_brain.mind.talk.realise import (
    described,
    first_person,
    join_clauses,
    persona_sentences,
    pronoun_forms,
    reported,
    sentence,
)

# (fact, me, you, me_pronoun, expected)
FIRST_PERSON = [
    # Fishing village (Saltmere).
    (
        "Tomas Reyes is selling his boat, the Gull, because his knees are too bad for the sea",
        "Tomas Reyes",
        "",
        "",
        "I'm selling my boat, the Gull, because my knees are too bad for the sea.",
    ),
    (
        "Tomas Reyes told Ana Costa that he is selling his boat",
        "Ana Costa",
        "",
        "",
        "Tomas Reyes told me that he is selling his boat.",
    ),
    (
        "Lena Duarte bakes bread for the lantern festival",
        "Ana Costa",
        "",
        "",
        "Lena Duarte bakes bread for the lantern festival.",
    ),
    (
        "Tomas Reyes and his brother were at sea",
        "Tomas Reyes",
        "",
        "",
        "My brother and I were at sea.",
    ),
    ("Tomas Reyes often fishes at Gull Rock", "Tomas Reyes", "", "", "I often fish at Gull Rock."),
    (
        "Ana Costa thinks Tomas Reyes is lying",
        "Tomas Reyes",
        "Ana Costa",
        "",
        "You think I'm lying.",
    ),
    (
        "Tomas is mending his nets. Then he goes to the harbour",
        "Tomas Reyes",
        "",
        "",
        "I'm mending my nets. Then I go to the harbour.",
    ),
    (
        "Lena Duarte told Tomas Reyes that she is leaving",
        "Tomas Reyes",
        "",
        "",
        "Lena Duarte told me that she is leaving.",
    ),
    (
        "Tomas Reyes told Lena Duarte that he is leaving",
        "Tomas Reyes",
        "",
        "he",
        "I told Lena Duarte that I'm leaving.",
    ),
    ("Tomas Reyes has been ill", "Tomas Reyes", "", "", "I've been ill."),
    ("Tomas Reyes has three silver", "Tomas Reyes", "", "", "I have three silver."),
    # Fantasy village (Oakvale).
    (
        "Bram Holt shod Captain Vera's horse this morning",
        "Bram Holt",
        "",
        "",
        "I shod Captain Vera's horse this morning.",
    ),
    (
        "Bram Holt wakes at dawn, works the forge all day and drinks at the Red Boar at night",
        "Bram Holt",
        "",
        "",
        "I wake at dawn, work the forge all day and drink at the Red Boar at night.",
    ),
    (
        "Bram Holt owes Vera Stone three silver",
        "Vera Stone",
        "Bram Holt",
        "",
        "You owe me three silver.",
    ),
    (
        'Mira Vance said to Bram Holt: "The east gate will be closed tomorrow."',
        "Bram Holt",
        "",
        "",
        'Mira Vance told me: "The east gate will be closed tomorrow."',
    ),
    (
        'Mira Vance said to Bram Holt: "The east gate will be closed tomorrow."',
        "Mira Vance",
        "",
        "",
        'I told Bram Holt: "The east gate will be closed tomorrow."',
    ),
    ("Bram Holt isn't afraid of the dark", "Bram Holt", "", "", "I'm not afraid of the dark."),
    ("Mira Vance doesn't trust Bram Holt", "Bram Holt", "Mira Vance", "", "You don't trust me."),
    ("The anvil is Bram's", "Bram Holt", "", "", "The anvil is mine."),
    (
        "Mira Vance and Bram Holt guard the east gate",
        "Bram Holt",
        "",
        "",
        "Mira Vance and I guard the east gate.",
    ),
    (
        "Mira Vance asked Bram Holt to fix her gate",
        "Bram Holt",
        "",
        "he",
        "Mira Vance asked me to fix her gate.",
    ),
    (
        "Bram Holt asked Mira Vance to help him",
        "Bram Holt",
        "",
        "",
        "I asked Mira Vance to help me.",
    ),
    ("Captain Stone is the head of the guard", "Vera Stone", "", "", "I'm the head of the guard."),
    (
        "Vera Stone's patrol found Bram Holt asleep at the forge",
        "Vera Stone",
        "Bram Holt",
        "",
        "My patrol found you asleep at the forge.",
    ),
    # Space station (Kestrel Station).
    (
        "Imani Osei treated the dock chief's burns",
        "Dr. Imani Osei",
        "",
        "",
        "I treated the dock chief's burns.",
    ),
    (
        "Commander Juno Park runs Kestrel Station and she answers to nobody",
        "Juno Park",
        "",
        "",
        "I run Kestrel Station and I answer to nobody.",
    ),
    (
        "Juno Park owes Imani Osei a favour because Imani patched her up",
        "Imani Osei",
        "Juno Park",
        "",
        "You owe me a favour because I patched you up.",
    ),
    (
        'Dr. Imani Osei said to Juno Park: "Your shoulder will heal."',
        "Juno Park",
        "",
        "",
        'Dr. Imani Osei told me: "Your shoulder will heal."',
    ),
    (
        "Sam Moore is tired; they have worked all night",
        "Sam Moore",
        "",
        "they",
        "I'm tired; I've worked all night.",
    ),
    # 'they' with no antecedent that is the holder stays as it is.
    (
        "They are refuelling the shuttle",
        "Sam Moore",
        "",
        "they",
        "They are refuelling the shuttle.",
    ),
    # 'they' given means 'they or not known': his/her with only the holder to mean is the holder.
    (
        "Tomas Reyes decided to sell his boat, the Gull, because his knees are too bad for the sea",
        "Tomas Reyes",
        "",
        "they",
        "I decided to sell my boat, the Gull, because my knees are too bad for the sea.",
    ),
    # ..but where another person was named before it, a subordinate clause's pronoun of a
    # gender nobody is known to have could mean either, and stays.
    (
        "Tomas Reyes told Lena Duarte that he is leaving",
        "Tomas Reyes",
        "",
        "they",
        "I told Lena Duarte that he is leaving.",
    ),
    (
        "Ana Costa told Tomas Reyes that he should sell his boat",
        "Tomas Reyes",
        "Ana Costa",
        "he",
        "You told me that I should sell my boat.",
    ),
    # A clause of its own ('once you know her'): its object may be the sentence's subject.
    ("Ana Costa is warm once you know her", "Ana Costa", "", "she", "I'm warm once you know me."),
    ("Ana Costa is warm once you know her", "Ana Costa", "", "", "I'm warm once you know me."),
    ("Ana Costa is warm once you know her", "Ana Costa", "", "he", "I'm warm once you know her."),
    ("Bram Holt ran after him", "Bram Holt", "", "", "I ran after him."),
    (
        "Imani Osei patched up Juno Park after she crashed the shuttle",
        "Imani Osei",
        "",
        "",
        "I patched up Juno Park after she crashed the shuttle.",
    ),
    # A title before the name is part of the mention; its period ends no sentence.
    (
        "Dr. Hana Lin met Capt. Vera Stone. She was tired",
        "Hana Lin",
        "",
        "she",
        "I met Capt. Vera Stone. I was tired.",
    ),
    # 'and' joins two nouns of an object (no object of its own), or two verbs.
    (
        "Mira Vance sells salves and remedies in her cottage",
        "Mira Vance",
        "",
        "",
        "I sell salves and remedies in my cottage.",
    ),
    (
        "Bram Holt forges swords and shoes horses",
        "Bram Holt",
        "",
        "",
        "I forge swords and shoe horses.",
    ),
]


@pytest.mark.parametrize(("fact", "me", "you", "me_pronoun", "expected"), FIRST_PERSON)
def test_first_person(fact: str, me: str, you: str, me_pronoun: str, expected: str) -> None:
    assert first_person(fact, me, you, me_pronoun) == expected


def test_first_person_of_nothing_is_nothing() -> None:
    assert first_person("", "Bram Holt") == ""


# (teller, words, hearer, pronoun, expected)
REPORTED = [
    (
        "Sam Moore",
        "I'm running for the council.",
        "me",
        "they",
        "Sam Moore told me they're running for the council.",
    ),
    (
        "Sam Moore",
        "I'm running for the council.",
        "me",
        "he",
        "Sam Moore told me he's running for the council.",
    ),
    (
        "Tomas Reyes",
        "I am selling my boat for 300 coins.",
        "me",
        "he",
        "Tomas Reyes told me he's selling his boat for 300 coins.",
    ),
    (
        "Ana Costa",
        "You should come to the festival.",
        "me",
        "she",
        "Ana Costa told me I should come to the festival.",
    ),
    (
        "Ana Costa",
        "The festival starts at dusk.",
        "me",
        "she",
        "Ana Costa told me the festival starts at dusk.",
    ),
    (
        "Bram Holt",
        "I work the forge and drink at the Red Boar.",
        "me",
        "he",
        "Bram Holt told me he works the forge and drinks at the Red Boar.",
    ),
    ("Bram Holt", "I work the forge.", "me", "they", "Bram Holt told me they work the forge."),
    ("Bram Holt", "Don't touch my anvil.", "me", "he", "Bram Holt told me not to touch his anvil."),
    (
        "Juno Park",
        "I don't trust the new pilot.",
        "me",
        "she",
        "Juno Park told me she doesn't trust the new pilot.",
    ),
    (
        "Juno Park",
        "I was on the bridge when you called me.",
        "me",
        "they",
        "Juno Park told me they were on the bridge when I called them.",
    ),
    (
        "Juno Park",
        '"Gull Rock floods at high tide."',
        "me",
        "she",
        "Juno Park told me Gull Rock floods at high tide.",
    ),
    (
        "Vera Stone",
        "Have you seen my sword?",
        "me",
        "she",
        'Vera Stone asked me: "Have you seen my sword?"',
    ),
    # a word of a name is no pronoun
    (
        "Ines Varga",
        "I found the props of Saltmere Mine cracked.",
        "me",
        "she",
        "Ines Varga told me she found the props of Saltmere Mine cracked.",
    ),
]


@pytest.mark.parametrize(("teller", "words", "hearer", "pronoun", "expected"), REPORTED)
def test_reported(teller: str, words: str, hearer: str, pronoun: str, expected: str) -> None:
    assert reported(teller, words, hearer, pronoun) == expected


def test_reported_defaults_to_me_and_they() -> None:
    assert reported("Sam Moore", "I'm running for the council.") == (
        "Sam Moore told me they're running for the council."
    )


def test_pronoun_forms() -> None:
    assert pronoun_forms("he") == ("he", "him", "his")
    assert pronoun_forms("She") == ("she", "her", "her")
    assert pronoun_forms("they") == ("they", "them", "their")
    assert pronoun_forms("xe") == ("they", "them", "their")


# (name, field, fragment, expected)
PERSONA = [
    (
        "Bram Holt",
        "identity",
        "the blacksmith of Oakvale, who forges swords and shoes horses",
        "I'm the blacksmith of Oakvale. I forge swords and shoe horses.",
    ),
    (
        "Vera Stone",
        "identity",
        "captain of the Oakvale town guard",
        "I'm the captain of the Oakvale town guard.",
    ),
    (
        "Tomas Reyes",
        "identity",
        "Tomas Reyes is an old fisherman who has fished Saltmere's waters for forty years",
        "I'm an old fisherman. I've fished Saltmere's waters for forty years.",
    ),
    (
        "Imani Osei",
        "identity",
        "runs the station's med bay and keeps everyone alive",
        "I run the station's med bay and keep everyone alive.",
    ),
    (
        "Juno Park",
        "identity",
        "Kestrel Station's quartermaster",
        "I'm Kestrel Station's quartermaster.",
    ),
    ("Juno Park", "identity", "retired pilot", "I'm a retired pilot."),
    (
        "Juno Park",
        "identity",
        "the daughter of a pilot who died in the war",
        "I'm the daughter of a pilot who died in the war.",
    ),
    (
        "Lena Duarte",
        "identity",
        "Baker of Saltmere. Lost her husband to the sea",
        "I'm the baker of Saltmere. I lost my husband to the sea.",
    ),
    ("Bram Holt", "traits", "gruff, honest, patient", "I'm gruff, honest and patient."),
    (
        "Vera Stone",
        "traits",
        "kind to strangers; quick to anger",
        "I'm kind to strangers and quick to anger.",
    ),
    (
        "Juno Park",
        "traits",
        "loves the stars, hates paperwork, loyal",
        "I'm loyal. I love the stars and hate paperwork.",
    ),
    (
        "Bram Holt",
        "routine",
        "wakes at dawn, works the forge all day, drinks at the Red Boar tavern at night",
        "I wake at dawn, work the forge all day and drink at the Red Boar tavern at night.",
    ),
    (
        "Vera Stone",
        "routine",
        "goes to bed around 11pm, wakes up around 6am",
        "I go to bed around 11pm and wake up around 6am.",
    ),
    (
        "Lena Duarte",
        "routine",
        "She wakes before dawn, bakes bread, sells it at the harbour",
        "I wake before dawn, bake bread and sell it at the harbour.",
    ),
    ("Juno Park", "routine", "works the night shift, sleeps", "I work the night shift and sleep."),
    (
        "Bram Holt",
        "doing",
        "repairing the town gate's hinges",
        "I'm repairing the town gate's hinges.",
    ),
    (
        "Tomas Reyes",
        "doing",
        "Tomas is getting ready to sell his boat",
        "I'm getting ready to sell my boat.",
    ),
    (
        "Ana Costa",
        "doing",
        "is preparing for the lantern festival",
        "I'm preparing for the lantern festival.",
    ),
    ("Imani Osei", "doing", "asleep in the med bay", "I'm asleep in the med bay."),
    # A title before the holder's name is part of the mention, whatever the name holds.
    (
        "Hana Lin",
        "identity",
        "Dr. Hana Lin is the only medic on Kestrel Station",
        "I'm the only medic on Kestrel Station.",
    ),
    (
        "Dr. Hana Lin",
        "identity",
        "Captain Hana Lin is the only medic on Kestrel Station",
        "I'm the only medic on Kestrel Station.",
    ),
    # A subordinate clause or an apposition after a comma is no item of a list.
    (
        "Tomas Reyes",
        "doing",
        "selling his boat, the Gull, because his knees are too bad for the sea",
        "I'm selling my boat, the Gull, because my knees are too bad for the sea.",
    ),
    (
        "Bram Holt",
        "traits",
        "gruff, kind once he trusts you",
        "I'm gruff and kind once I trust you.",
    ),
    # In a list of traits a past participle is an adjective, a bare noun gets its article.
    ("Juno Park", "traits", "calm, blunt, overworked", "I'm calm, blunt and overworked."),
    (
        "Vera Stone",
        "traits",
        "scarred by war, known for her temper, lost her brother to the orcs",
        "I'm scarred by war and known for my temper. I lost my brother to the orcs.",
    ),
    (
        "Lena Duarte",
        "traits",
        "cheerful, gossipy, early riser",
        "I'm cheerful, gossipy and an early riser.",
    ),
    ("Bram Holt", "traits", "patient, loner", "I'm patient and a loner."),
    # An object pronoun that can only mean the holder is the holder.
    (
        "Ana Costa",
        "traits",
        "quiet, sharp-eyed, warm once you know her",
        "I'm quiet, sharp-eyed and warm once you know me.",
    ),
    (
        "Mira Vance",
        "identity",
        "the village herbalist, who brews salves and remedies in her cottage by the old mill",
        "I'm the village herbalist. I brew salves and remedies in my cottage by the old mill.",
    ),
    # A third-person verb after a comma starts a sentence of its own.
    (
        "Ana Costa",
        "identity",
        "net mender on the harbour, mends the nets of every boat in Saltmere",
        "I'm a net mender on the harbour. I mend the nets of every boat in Saltmere.",
    ),
    (
        "Juno Park",
        "identity",
        "Commander Juno Park, captain of the Kestrel",
        "I'm the captain of the Kestrel.",
    ),
    (
        "Juno Park",
        "doing",
        "plotting a course to the outer belt, since the fuel is low",
        "I'm plotting a course to the outer belt, since the fuel is low.",
    ),
    (
        "Juno Park",
        "identity",
        "a trader in furs, spices and silks",
        "I'm a trader in furs, spices and silks.",
    ),
    # A participle that is an adjective too describes, before its preposition ...
    (
        "Vera Stone",
        "doing",
        "worried about the cracked wall, and warning the guards",
        "I'm worried about the cracked wall and warning the guards.",
    ),
    ("Juno Park", "doing", "tired of the station", "I'm tired of the station."),
    # ... and a past tense that is only a verb stays one
    ("Bram Holt", "doing", "worked at the mill", "I worked at the mill."),
]
FIELDS = {"identity": 0, "traits": 1, "routine": 2, "doing": 3}


@pytest.mark.parametrize(("name", "field", "fragment", "expected"), PERSONA)
def test_persona_sentences(name: str, field: str, fragment: str, expected: str) -> None:
    args = ["", "", "", ""]
    args[FIELDS[field]] = fragment
    assert persona_sentences(name, *args) == {field: expected}


def test_persona_sentences_all_fields_and_none() -> None:
    said = persona_sentences(
        "Bram Holt",
        "the blacksmith of Oakvale",
        "gruff, honest",
        "wakes at dawn",
        "repairing the town gate",
    )
    assert said == {
        "identity": "I'm the blacksmith of Oakvale.",
        "traits": "I'm gruff and honest.",
        "routine": "I wake at dawn.",
        "doing": "I'm repairing the town gate.",
    }
    assert persona_sentences("Bram Holt", "", " ", "", "") == {}


def test_sentence() -> None:
    assert sentence("  the  gate is   shut ") == "The gate is shut."
    assert sentence("is the gate shut?") == "Is the gate shut?"
    assert sentence('mira said: "go."') == 'Mira said: "go."'
    assert sentence("") == ""


def test_join_clauses() -> None:
    assert join_clauses(["a", "b", "c"]) == "a, b and c"
    assert join_clauses(["a", " b "]) == "a and b"
    assert join_clauses(["a"]) == "a"
    assert join_clauses([]) == ""


@pytest.mark.parametrize(
    ("name", "learned", "pronoun", "said"),
    [
        (
            "Ana Costa",
            "net mender on the harbour, mends the nets of every boat in Saltmere",
            "she",
            "Ana Costa is a net mender on the harbour. She mends the nets of every boat in "
            "Saltmere.",
        ),
        (
            "Teo Vasquez",
            "junior engineer who keeps the station's reactor running",
            "he",
            "Teo Vasquez is a junior engineer. He keeps the station's reactor running.",
        ),
        (  # "they" would need the verb turned: the name is said again
            "Ash Reed",
            "the ferryman of the Salt Marsh, who rows travellers across",
            "they",
            "Ash Reed is the ferryman of the Salt Marsh. Ash Reed rows travellers across.",
        ),
        ("Dafydd Moss", "runs the fish market", "he", "Dafydd Moss runs the fish market."),
    ],
)
def test_what_someone_is_is_said_of_them_a_sentence_a_clause(
    name: str, learned: str, pronoun: str, said: str
) -> None:
    assert described(name, learned, pronoun) == said
