#!/usr/bin/env bash
# Your first match, one step at a time, with curl. Every value a step needs comes from an earlier
# answer, so it works whatever the deal. Needs curl and python3 (for reading JSON; with jq,
# `jq -r .deal.to_act` does what `field deal.to_act` does here).
set -euo pipefail
B=${BATAK_URL:-http://127.0.0.1:8000}/api/v1

# field PATH: one field of the JSON on stdin (`deal.to_act`, `deal.legal_actions.0`).
field() {
    python3 -c 'import json, sys
value = json.load(sys.stdin)
for key in sys.argv[1].split("."):
    value = value[int(key)] if key.isdigit() else value[key]
print(json.dumps(value) if isinstance(value, (dict, list)) else value)' "$1"
}

# 1. An account: a username (3 to 150 of A-Z a-z 0-9 _ . @ + -), a password (8 or more
#    characters, not a common one) and the name the table shows. The answer holds your token.
#    (`POST /auth/guest` with only a display_name gives a guest account instead.)
USERNAME=ayse_$RANDOM$RANDOM
TOKEN=$(curl -sf -X POST "$B/auth/register" -H 'Content-Type: application/json' \
    -d "{\"username\": \"$USERNAME\", \"password\": \"tea garden at noon\", \"display_name\": \"Ayşe\"}" \
    | field token)
H="Authorization: Token $TOKEN"

# 2. A match: you in seat 0, three computer players, one deal of the auction game.
MATCH=$(curl -sf -X POST "$B/matches" -H "$H" -H 'Content-Type: application/json' \
    -d '{"game": "auction", "deals": 1, "seats": [{"kind": "me"},
         {"kind": "bot", "bot_level": "easy"}, {"kind": "bot", "bot_level": "medium"},
         {"kind": "bot", "bot_level": "medium"}]}' | field id)
echo "match $MATCH"

# 3. Your seat's view: your hand, whose turn it is, the match's version and what you may do.
#    The computer players before you have already called, so wait on the event feed until the
#    seat to act (`deal.to_act`) is yours.
VIEW=$(curl -sf "$B/matches/$MATCH/view" -H "$H")
while [[ $(echo "$VIEW" | field deal.to_act) != $(echo "$VIEW" | field seat) ]]; do
    curl -sf "$B/matches/$MATCH/events?after=$(echo "$VIEW" | field version)&wait=20" -H "$H" >/dev/null
    VIEW=$(curl -sf "$B/matches/$MATCH/view" -H "$H")
done
VERSION=$(echo "$VIEW" | field version)
echo "hand: $(echo "$VIEW" | field deal.hand)"
echo "legal: $(echo "$VIEW" | field deal.legal_actions)"

# 4. Take one of the legal actions (here the first; in the auction it may be a bid or a pass).
#    Every action goes to /actions: the entry of legal_actions as it is, and the version you
#    read: if the match moved on meanwhile, the answer is 409 stale_version and nothing changes.
ACTION=$(echo "$VIEW" | field deal.legal_actions.0)       # e.g. {"kind": "bid", "tricks": 4}
BODY=$(echo "$ACTION" | python3 -c 'import json, sys
print(json.dumps({**json.load(sys.stdin), "expected_version": int(sys.argv[1])}))' "$VERSION")
VIEW=$(curl -sf -X POST "$B/matches/$MATCH/actions" -H "$H" \
    -H 'Content-Type: application/json' -d "$BODY")      # the answer is your view again
echo "took $ACTION at version $VERSION; now version $(echo "$VIEW" | field version)"

# 5. Every move so far, in order (the computer players' too), by the event feed's cursor.
curl -sf "$B/matches/$MATCH/events?after=0&wait=0" -H "$H"
echo
# To play on, repeat steps 3 and 4 until the view's `status` is no longer `active`:
# first_match.py does exactly that.
