"""English's words by what they mean, as the talk layer reads a line: verbs of saying,
having and trading, words of thanks and greeting, nouns that ask after news in general.
No game's vocabulary: a check that needs the world's words (its places, people, news)
reads them from the world and the cast. Its grammar (pronouns, auxiliaries, small
words) is in npc_brain.words; this module is what another language would replace."""

from __future__ import annotations

from npc_brain.words import stem


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Verbs that frame what is asked ("do you know ..", "tell me ..", "I think ..") and
# "today": never what a line is about.
FRAMING = _words("know tell told think said say says today")
# English's verbs of speaking, as lemmas: a question with one asks of what was said.
SPEAKING = _words("say tell talk speak ask chat mention")
# English's verbs of keeping busy: "what did you do", "how did you spend", "been busy".
DOING = _words("do doing done spend spent spending busy up")
# Verbs of moving towards a time ahead: "are you going to ..." asks of then, not now.
GOING = _words("going coming heading")
# The verbs that say one holds an event, as stems: hosting, throwing or planning it.
HOSTING = frozenset(
    map(stem, ["host", "throw", "hold", "organize", "organise", "give", "arrange", "plan", "have"])
)

# Nouns that ask after news in general, not after a thing: "any news in town this week?"
GENERAL_NOUNS = _words(
    "news word anything something everything nothing town city village place people "
    "thing things day days week weeks month today tonight morning afternoon evening night "
    "time lately while world way lot anyone someone everyone"
)

# Words of thanking ("thanks", "much obliged", "I appreciate it"), as lemmas: a line of
# thanks says one; a line of praise ("Nice sword.") says none.
THANKING = _words("thank thanks cheers oblige grateful appreciate ta")
# Words that greet a name after them ("Hi Vera", "Dear Vera").
GREETING = _words("hi hello hey dear")
# What a speaker says before its own name ("I'm Tomas", "my name is Tomas").
SELF_NAMING = tuple(
    tuple(phrase.split())
    for phrase in ("i'm", "i am", "my name is", "this is", "call me", "it's me")
)
# Capitalised words that name nobody: greetings, days, titles, and common nouns a small
# model capitalises ("Wow", "Mr", "Christmas", "Friends").
NOT_NAMES = _words(
    "hi hello hey oh wow well good great nice sure okay ok thanks thank please sorry welcome "
    "dear happy hope glad yeah yep sounds let maybe perhaps absolutely definitely "
    "really actually honestly speaking congratulations cheers bye goodbye see morning "
    "afternoon evening night today tomorrow tonight yesterday day week weekend year "
    "christmas easter halloween thanksgiving new mr mrs ms miss dr sir madam "
    "mom dad mum grandma grandpa god english spanish french italian german "
    "everyone everybody someone somebody anyone nobody love friend friends come wait "
    "listen look remember guess tell excuse awesome amazing perfect wonderful fantastic "
    "excellent cool alright indeed exactly right true anyway ah hmm um uh ha haha yay "
    "whoa gosh darling honey sweetie buddy folks guys lovely"
)

RELATIVE_DAYS = _words("today tonight tomorrow yesterday")  # days said from now

# Words that say a thing cannot be had or used for now ("Bay 3 stays sealed", "the east
# gate closed all day Thursday"), as written: "close" may be "near".
BARRING = _words("closed shut shutting sealed cancelled canceled forbidden banned barred")
# English's verbs of trade, as lemmas ("sells a dagger for 12 coins"), of having ("got
# flour?"), and the words of trading that name no ware ("What's the price?", "how much").
TRADE_VERBS = _words("sell cost charge price buy pay ask")
HAVING = _words("have get carry stock keep need want")
LEAVING = _words("leave go")  # "I'm not leaving", "ain't going nowhere": no farewell
# Verbs that say little of what is done ("give me a break", "get me out"): an order
# opened by one names no action by its verb.
LIGHT_VERBS = _words("give get take make do have put let keep go come bring set run")
TRADE_WORDS = TRADE_VERBS | _words(
    "much ware offer deal discount bargain lot total bill "
    "change money cash coin credit gold silver copper sale"
)
# The nouns games name the one an action serves with ("shoe the customer's horse").
SERVED = _words("asker customer patient player buyer client guest traveller visitor speaker")
# What takes back what was said before it ("a loaf and... no, actually, a fish pie").
CORRECTIONS = tuple(
    tuple(phrase.split())
    for phrase in (
        "no actually",
        "no wait",
        "actually no",
        "i mean",
        "scratch that",
        "on second thought",
    )
)
# What opens an offer to do something for the listener ("want me to find out where they
# went?", "need a hand with the lanterns?"): the speaker asks for work.
OFFERS = tuple(
    tuple(phrase.split())
    for phrase in (
        "want me to",
        "need me to",
        "wanna me to",
        "need a hand",
        "need some help",
        "need any help",
        "i'll help",
        "i can help",
        "i could help",
        "let me help",
        "happy to help",
    )
)
