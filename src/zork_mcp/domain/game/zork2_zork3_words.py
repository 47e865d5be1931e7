"""Zork II's and Zork III's own words, for a GameProfile each (trilogy.py), as Zork I's.

Sources: historicalsource/zork2 (ZORK2.ZIL inserts GSYNTAX, 2DUNGEON, GGLOBALS, GCLOCK, GMAIN,
GPARSER, GVERBS, 2ACTIONS) and historicalsource/zork3 (ZORK3.ZIL inserts GSYNTAX, GCLOCK, GMAIN,
GPARSER, 3DUNGEON, GGLOBALS, GVERBS, 3ACTIONS; the un-prefixed actions.zil, dungeon.zil,
parser.zil, verbs.zil, shadow.zil and tm.zil in that repository are older files the build does
not use). Both repositories hold COMPILED/zorkN.z3 and the assembler output (*.zap): the
compiled files are byte-identical to ../shared/games/zork2.z3 (Release 63, serial 860811)
and zork3.z3 (Release 25, serial 860811), so the source is the release we play. The G* files
(gparser, gmain, gglobals, gverbs, gsyntax) are identical in the two repositories and to
historicalsource/zork1's: the three games share one parser.

Every string below was found in the story file (a scan that decodes Z-strings from every
byte offset; composed texts are checked piece by piece), and the ones marked "seen" were
played with Jericho (FrotzEnv, seed 12). Dictionary words are checked against each story
file's dictionary (the entries that carry PS?DIRECTION).
"""

from __future__ import annotations

from types import MappingProxyType

from zork_mcp.domain.game.profile import COMPASS

# ---------------------------------------------------------------------------------------------
# Shared by both games: the parser (gparser.zil, gmain.zil, gglobals.zil), JIGS-UP's banner,
# V-WALK's and V-CLIMB-UP's words (gverbs.zil), the door-exit pattern.
# ---------------------------------------------------------------------------------------------

# JIGS-UP's banner: Zork II "|    ****  You have died  ****" (2actions.zil), Zork III
# "****  You have died  ****" in JIGS-UP and in REALLY-DEAD (3actions.zil). Same as Zork I's.
# Not matched, on purpose: "****  The <actor> has died  ****" (an actor you commanded).
DEATH = r"\*\*\*\*\s+You have died\s+\*\*\*\*"

_UNREAD = (
    # --- the ones Zork I's profile lists (same routines) ---
    "I don't know the word",  # UNKNOWN-WORD, gparser.zil (seen: 'take foo')
    "You used the word",  # CANT-USE: '... in a way that I don't understand.'
    "There was no verb in that sentence!",  # SYNTAX-CHECK (seen: 'the')
    "That sentence isn't one I recognize.",  # SYNTAX-CHECK
    "There seems to be a noun missing in that sentence!",  # GET-OBJECT (seen, Zork III)
    "There were too many nouns in that sentence.",  # PARSER (seen: 'put lamp in lamp on lamp')
    "You can't use multiple",  # MANY-CHECK: '... direct objects with "read".' (seen)
    "I beg your pardon?",  # PARSER, an empty command (seen)
    "You can't see any",  # NOT-HERE-OBJECT-F, gglobals.zil (seen: 'take unicorn', Zork II)
    "Those things aren't here!",  # NOT-HERE-OBJECT-F
    # PERFORM's loop in gmain.zil composes "The [other ]object[s] that you mentioned
    # [is|are]n't here." (seen: "The other object that you mentioned isn't here.")
    "The object that you mentioned",
    "The objects that you mentioned",
    "The other object that you mentioned",
    "The other objects that you mentioned",
    # --- more of the same parser's refusals, absent from Zork I's list (Zork I Release 119
    # prints them too: its story file holds every one) ---
    "I can't help your clumsiness.",  # PARSER: OOPS alone (seen)
    "Sorry, you can't correct mistakes in quoted text.",  # PARSER: OOPS "..." (seen)
    "There was no word to replace!",  # PARSER: OOPS with no mistake to fix (seen)
    "Beg pardon?",  # PARSER: AGAIN/G before any command
    "It's difficult to repeat fragments.",  # PARSER: AGAIN after a question back
    "That would just repeat a mistake.",  # PARSER: AGAIN after a refused command (seen)
    "I couldn't understand that sentence.",  # PARSER: 'g sword' (seen)
    "Please consult your manual for the correct way to talk to other people",  # PARSER
    "That question can't be answered.",  # SYNTAX-CHECK: FIND with nothing to find (seen)
    '"I don\'t understand! What are you referring to?"',  # CANT-ORPHAN, an order to an actor
    "It's too dark to see",  # GET-OBJECT ("...!") and PERFORM's loop, gmain.zil ("...")
    "It's not clear what you're referring to.",  # gmain.zil: no object for the verb
    "I don't see what you are referring to.",  # PERFORM, gmain.zil: "it" out of reach
    "I don't see what you're referring to.",  # ITAKE-CHECK, gparser.zil: "it" out of reach
    "There's nothing here you can take.",  # gmain.zil: every object of "take ..." skipped
)
# Left out on purpose: "Warning: only the first word after OOPS is used." (the command is then
# read), "Nothing happens." (UNKNOWN-WORD/CANT-USE after SAY; too common a line),
# "(How about the ...?)" (the command goes on), "You don't have that!" / "You don't have the
# ..." (ITAKE-CHECK, seen for 'drop all' with nothing held: "You don't have the tunnel.", but
# verbs print the same words: gverbs.zil V-PUT, Zork II's SCOL-OBJECT, Zork III's
# CROWN-JEWELS-F),
# "The <actor> seems confused. \"I don't see any ... here!\"" (NOT-HERE-OBJECT-F for an order
# to an actor; its line starts with the actor's name). Questions back ("What do you want to
# ...?", "Which ... do you mean, ...?") are read commands, as for Zork I.

_V_WALK = (
    "You can't go that way.",  # V-WALK (no exit; a conditional exit without ELSE); V-CLIMB-UP
    # V-WALK in the dark when the grue repellent is on you (SPRAYED?: both games have the can)
    "There are odd noises in the darkness, and there is no exit in that direction.",
    "Climbing the walls is to no avail.",  # V-CLIMB-UP: 'climb north wall' (seen, Zork II)
)
# V-CLIMB-UP given an object: "The " D object " do[es]n't lead upward." / "...downward." when
# the exit that way is a string or does not reach the object (seen in Zork III: 'climb stairs'
# at the Endless Stair, "The stairs don't lead upward."; 'climb north wall', "The northern wall
# doesn't lead upward."). BEWARE: a bare 'climb down' in these two releases reaches
# V-CLIMB-DOWN with PRSO = ROOMS (object 37 in Zork II, 34 in Zork III; it has no DESC), which
# calls <V-CLIMB-UP ,P?DOWN ,PRSO>; V-CLIMB-UP's first COND keeps OBJ = ROOMS, so any real
# exit down is refused: "The object#37 doesn't lead downward." (Zork II, Tiny Room) / "The
# object#34 doesn't lead downward." (Zork III, Cliff) where 'd' walks it (seen; Zork I R119's
# 'climb down' walks). No sign of a missing exit: read 'climb down' as no direction there.
# A bare 'climb up' walks (V-CLIMB-UP is then called without its object) when the parser finds
# it an object, else "There seems to be a noun missing in that sentence!" (both seen, Zork II).
EXIT_REFUSAL_PATTERNS = (r"\bThe [^.!?\n]+? do(?:es)?n't lead (?:up|down)ward\.",)

# V-WALK's door exit without a string of its own prints "The " D door " is closed.":
# Zork II's doors: "crypt door", "door partly covered in cobwebs", "stone door", "door made of
# oak" (seen: "The door made of oak is closed."); Zork III's: "secret door", "wooden door",
# "cell door", "bronze door", "stone door". Same pattern as Zork I's. It also takes in Zork
# III's "The steel door is closed.", "The bronze door is closed.", "The panel is closed."
CLOSED_DOOR = r"\bThe [\w -]+ is closed\."


# ---------------------------------------------------------------------------------------------
# Zork II: The Wizard of Frobozz (Release 63)
# ---------------------------------------------------------------------------------------------

ZORK2_NAME = "Zork II"
ZORK2_STORY_FILE = "zork2.z3"
ZORK2_MAX_SCORE = 400  # V-SCORE: "(total of 400 points)"

# gsyntax.zil's synonyms; 2dungeon.zil: <DIRECTIONS NORTH EAST WEST SOUTH NE NW SE SW UP DOWN
# IN OUT LAND CROSS>. CROSS (and its verb synonym FORD) is a direction here: "cross" alone walks
# the CROSS exit (seen at Dragon Room: 'cross' -> Stone Bridge), "cross <object>" is the verb.
ZORK2_DIRECTIONS = MappingProxyType({**COMPASS, "land": "land", "cross": "cross", "ford": "cross"})

ZORK2_DEATH = DEATH
ZORK2_UNREAD = _UNREAD

ZORK2_EXIT_REFUSALS = (
    *_V_WALK,
    # --- each room's exit string (NEXIT) or conditional ELSE string (CEXIT), 2dungeon.zil ---
    # INSIDE-BARROW (OUT ...) (seen)
    "You may not recall, but when you entered, the door of the barrow shut behind you. "
    "There is no way out.",
    # NARROW-TUNNEL (DOWN ...) (seen)
    "As you start down, you slip on the crumbling rocks and pull back, narrowly averting a "
    "fatal fall.",
    "The drop would be fatal.",  # FOOT-BRIDGE (DOWN ...) (seen)
    "You'll have to specify a direction.",  # FOOT-BRIDGE, STONE-BRIDGE (CROSS ...) (seen)
    "The ravine is extremely deep. You would never make it.",  # STREAM-PATH (DOWN ...) (seen)
    "That's a wall there.",  # MARBLE-HALL (EAST TO STREAM-PATH IF SECRET-DOOR ELSE ...) (seen)
    # DEEP-FORD (EAST ...), (WEST ...) (both seen)
    "The stream deepens rapidly, and you wisely return before drowning.",
    "You notice that the ledge above would be a drier route west.",
    "There are a lot of sharp rocks down there.",  # LEDGE-TUNNEL (DOWN ...) (seen)
    # DRAGON-ROOM (NORTH/IN TO DRAGON-LAIR IF ICE-MELTED ELSE ...) (seen)
    "The dragon hisses at you and blocks your way.",
    "It's a long way down.",  # STONE-BRIDGE, LEDGE-2 (DOWN ...)
    "You don't even have an ice-pick.",  # GLACIER-ROOM (WEST TO LAVA-ROOM IF ICE-MELTED ELSE)
    # MENHIR-ROOM (SW ...), KENNEL (NE/OUT ... IF MENHIR-POSITION ELSE ...)
    "You are trying to walk through an enormous rock.",
    # CERBERUS-ROOM (EAST/IN TO CRYPT-ANTEROOM IF CERBERUS-LEASHED ELSE ...)
    "The huge dog snaps nastily at you.",
    "I wouldn't jump from here.",  # LEDGE-1 (DOWN ...)
    "I wouldn't try that.",  # VOLCANO-VIEW (DOWN ...)
    "It is impossible to cross this distance.",  # VOLCANO-VIEW (CROSS ...)
    "It's a long way down!",  # WELL-TOP (DOWN ...)
    "The walls cannot be climbed.",  # WELL-BOTTOM (UP ...)
    "Only a mouse could get in there.",  # TEA-ROOM (EAST ...)
    "A great chasm blocks your way.",  # POSTS-ROOM (NW, WEST, DOWN ...)
    "There is a curtain of light there.",  # DEPOSITORY (NORTH ...)
    # --- exit functions (FEXIT), 2actions.zil ---
    # BKLEAVEE/BKLEAVEW: DEPOSITORY (EAST/WEST PER ...) holding the bills or the portrait
    "An alarm rings briefly, and an invisible force bars your way.",
    # (MAGNET-ROOM-EXIT's refusal is "You can't go that way.")
    # --- room, vehicle and actor functions that take a WALK first (PERFORM: the winner's
    # action, then its container's M-BEG), 2actions.zil ---
    "You are tied to the ledge.",  # BALLOON-FCN M-BEG: walking in the tied basket
    "You can't control the balloon this way.",  # BALLOON-FCN M-BEG: no exit that way
    "There is no way to go in that direction.",  # DIAMOND-MOTION M-BEG (the diamond maze)
    "I suppose you plan to do that by flapping your arms?",  # MAGIC-ACTOR: the Float spell
    "An invisible fence of magical force bars your way.",  # MAGIC-ACTOR: the Fence spell
    # MAGIC-ACTOR, the Fall spell: walking where there is a DOWN exit, when you do not fall
    "You just tripped on an invisible cord, or perhaps your own feet. But this must be your "
    "lucky day, as you managed to regain your balance before what could have been a fatal "
    "fall.",
    # --- GOTO, gverbs.zil: a room MUNG-ROOM has ruined answers with its new LDESC
    # (MUNG-ROOM's strings in 2actions.zil) ---
    "The way is blocked by debris from an explosion.",  # I-FUSE (the brick goes off), I-SAFE
    "The ledge has collapsed and cannot be landed on.",  # I-LEDGE
    "Noxious vapors prevent your entry.",  # FLASK-FCN (opening the flask)
    # ICEBOOM
    "The entrance is blocked by sticky orange rubble. Probably some careless adventurer was "
    "playing with blasting cakes.",
    "You are stopped by a cloud of poisonous gas.",  # I-SPHERE
    # --- GOTO's NO-GO-TELL, gverbs.zil: "You can't go there in a " D vehicle "." for the two
    # NONLANDBIT vehicles (2dungeon.zil: <PUTP ,BALLOON ,P?VTYPE ,NONLANDBIT>, the bucket's too)
    # walked on land. Composed, not seen in play. ---
    "You can't go there in a basket.",  # the balloon's DESC is "basket"
    "You can't go there in a wooden bucket.",
    # --- V-EXIT -> V-DISEMBARK, gverbs.zil: 'exit' in the balloon in mid-air (episode_map reads
    # a lone 'exit' as the way out) ---
    "You realize that getting out here would be fatal.",
)
ZORK2_CLOSED_DOOR = CLOSED_DOOR

# Moving by an object verb rather than a direction ('cross stream', 'enter pentagram'):
# refusals too, but no direction walks them. Kept apart from the exit refusals.
ZORK2_OTHER_MOVE_REFUSALS = (
    "You can't cross that!",  # V-CROSS, gverbs.zil
    "You'll have to find a ford or a bridge.",  # STREAM-FCN: 'cross stream'
    "You'll have to find a bridge.",  # CHASM-FCN: 'cross chasm'
    "You can't go more than part way through the curtain.",  # V-THROUGH: the curtain of light
    # PENTAGRAM-FCN M-BEG: 'enter pentagram'
    "You try to enter the pentagram, but are forced back by an invisible power.",
)


# ---------------------------------------------------------------------------------------------
# Zork III: The Dungeon Master (Release 25)
# ---------------------------------------------------------------------------------------------

ZORK3_NAME = "Zork III"
ZORK3_STORY_FILE = "zork3.z3"
ZORK3_MAX_SCORE = 7  # <GLOBAL SCORE-MAX 7>, 3actions.zil

# gsyntax.zil's synonyms; 3dungeon.zil declares <DIRECTIONS ... LAND CROSS> but no room uses
# LAND or CROSS, and the compiler made no direction word of them: "land" is not in the
# dictionary (seen: 'I don't know the word "land".'), "cross"/"ford" are only the verb. The
# rooms use an ENTER exit instead (P?ENTER=7; the mirror box, FRONT-DOOR, NORTH-CORRIDOR,
# FLATHEAD-OCEAN), so "enter" is a direction word, distinct from IN: at Flathead Ocean 'enter'
# answers the ENTER exit's string, 'in' "You can't go that way." (seen). No room has an IN exit.
ZORK3_DIRECTIONS = MappingProxyType({**COMPASS, "enter": "enter"})

ZORK3_DEATH = DEATH
ZORK3_UNREAD = _UNREAD

ZORK3_EXIT_REFUSALS = (
    *_V_WALK,
    # --- each room's exit string (NEXIT) or conditional ELSE string (CEXIT/DEXIT);
    # 3dungeon.zil and the rooms defined in 3actions.zil ---
    # (MSTAIRS (NORTH/DOWN TO MR-ANTE IF SECRET-DOOR IS OPEN ELSE "You can't go that way."))
    "The opening is blocked by tons of debris.",  # DAMP-PASSAGE (NORTH ...) (seen)
    # DAMP-PASSAGE (UP ...), (SOUTH ...) (seen)
    "The channel is too steep and the moss too slippery.",
    "You would be burned to a crisp in no time.",  # PARAPET (NORTH ...)
    "The door is securely fastened.",  # PRISON-CELL (OUT ...)
    # CP-OUT (EAST TO CP IF CP-FLAG ELSE ...), MID-CP-OUT (EAST ...)
    "The steel door is closed.",
    # MUSEUM-ANTE (EAST TO MUSEUM-ENTRANCE IF CLEFT-FLAG ELSE ...)
    "The great iron door is rusted shut.",
    # MUSEUM-ENTRANCE (WEST ... IF CLEFT-FLAG ELSE ...), MID-MUSEUM-ENTRANCE (WEST ...)
    "The iron door is rusted shut.",
    "The guards locked the iron door behind them.",  # OLD-MUSEUM-ENTRANCE (WEST ...)
    "The stairs end blindly to the south.",  # OLD-MUSEUM-ENTRANCE (SOUTH ...)
    "Towering walls of rock bar your way.",  # SHADOW-1 (NE, NORTH ...)
    "A stone wall blocks the way.",  # SHADOW-2, SHADOW-8 (NE, NW ...)
    "The ground becomes too soft to walk on in that direction.",  # SHADOW-4 (SW ...)
    "The quicksand prevents movement in that direction.",  # SHADOW-5, SHADOW-6
    # FLATHEAD-OCEAN (ENTER, WEST, SW, NW ...) (seen: 'enter', 'w')
    "Between the rocks, wind, and waves, you wouldn't last a minute.",
    "The quicksand prevents movement here.",  # FLATHEAD-OCEAN (SOUTH ...) (seen)
    "The stairs are endless.",  # ZORK2-STAIR, the Endless Stair (NORTH, UP ...) (seen)
    "A stone wall blocks your way.",  # CLEARING, the Barren Area (SOUTH, SE ...) (seen)
    "You can't get up the rock face.",  # CLIFF-BASE (UP ...) (seen)
    "The drop would kill you.",  # CLIFF (DOWN TO CLIFF-LEDGE IF ROPE-FLAG ELSE ...)
    "There's no tree here suitable for climbing.",  # CLIFF (UP ...) (seen)
    "You attempt the climb but slide back down.",  # CLIFF-LEDGE (UP ...) (seen)
    "If you really want to enter the lake, you should say so.",  # LAKE-SHORE (SOUTH ...)
    "The sheer rock face prevents movement along the lake shore.",  # LAKE-SHORE (SW ...)
    "The drop would be fatal.",  # AQ-VIEW (DOWN ...)
    "The swamp is impassable.",  # ON-LAKE (SE, EAST, NE ...)
    "You are already at the bottom of the lake.",  # IN-LAKE (DOWN ...)
    "If you want to enter the lake, you should say so.",  # FAR-SHORE (EAST ...)
    # TIMBER-ROOM (WEST TO LOWER-SHAFT IF EMPTY-HANDED ELSE ...)
    "You cannot fit through this passage with that load.",
    "You are repelled from the exit by a fierce wind.",  # ROOM-8 (EAST ...)
    "The swamp is too thick.",  # SOUTH-SHORE (EAST ...)
    "If you want to go into the lake, you should say so.",  # SOUTH-SHORE (NORTH ...)
    # KEY-ROOM (DOWN TO AQ-1 IF COVER-MOVED ELSE ...)
    "You can't walk through a piece of metal.",
    "The hole is too far above your head.",  # AQ-1 (UP ...)
    "You can't climb the dried-up waterfall.",  # AQ-1 (SOUTH ...)
    "The arch before you is broken.",  # AQ-2 (NORTH TO AQ-3 IF AQ-FLAG ELSE ...)
    "It's a long way down....",  # AQ-2 (DOWN ...)
    "The arch to the south is broken.",  # AQ-3 (SOUTH TO AQ-2 IF AQ-FLAG ELSE ...)
    # --- exit functions (FEXIT), 3actions.zil ---
    "The hole is blocked by sandstone.",  # CPENTER: CP-ANTE, MID-CP-ANTE (DOWN PER ...)
    "The exit is too far above your head.",  # CPEXIT (the Royal Puzzle), up without ladder
    "There is no way up.",  # CPEXIT
    "There's no way down here.",  # CPEXIT
    "The metal door bars the way.",  # CPEXIT
    "There is a wall there.",  # CPEXIT, CPMOVE
    "There is a wooden wall blocking your way.",  # MRGO (the mirror-box corridor)
    "There is a large broken mirror blocking your way.",  # MRGO -> MIRBLOCK
    "There is a large mirror blocking your way.",  # MRGO -> MIRBLOCK
    "A mirror blocks your way.",  # MIRIN
    "The panel is closed.",  # MIRIN
    "The structure blocks your way.",  # MIRIN
    "There's a wall there.",  # MIROUT (inside the box)
    "You would hit one of the panels.",  # MIROUT
    "You are inside a closed box!",  # MIROUT
    "The bronze door is closed.",  # BRONZE-DOOR-EXIT (also "You can't go that way.")
    # --- room and vehicle functions that take a WALK first (M-BEG), 3actions.zil ---
    "You're not going anywhere in this heap.",  # TIME-MACHINE-F, sitting in the machine
    "Your way is blocked by the hooded figure.",  # SHADOW-ROOMS (seen)
    # CLIFF-LEDGE-F, holding the chest the rope is tied to
    "You can't go anywhere holding that chest. The rope is tied around it!",
)
ZORK3_CLOSED_DOOR = CLOSED_DOOR
# JIGS-UP after the fourth death: "You feel yourself disembodied in a deep blackness. ... It is
# the last you hear." then <QUIT>, never FINISH's prompt; Jericho's interpreter does not quit,
# and the story would go on at the Endless Stair (seen).
ZORK3_FINAL_WORDS = ("It is the last you hear.",)

ZORK3_OTHER_MOVE_REFUSALS = (
    "You can't cross that!",  # V-CROSS, gverbs.zil ('cross' is only a verb here)
)
