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

# 3. Wait for your move on the match's live stream (Server-Sent Events): it tells every move,
#    and on your own stream a `turn` event when it is your move, with what you may do
#    (`legal_actions`) and the match's version to send back. (The computer players before you
#    may have called already; the stream starts with your hand, then tells your turn.)
exec 3< <(curl -sfN "$B/matches/$MATCH/stream" -H "$H")
STREAM=$!
while IFS= read -r LINE <&3; do
    if [[ $LINE == "event: turn" ]]; then
        IFS= read -r LINE <&3
        TURN=${LINE#data: }
        break
    fi
done
kill "$STREAM"
VERSION=$(echo "$TURN" | field version)
echo "legal: $(echo "$TURN" | field legal_actions)"

# 4. Take one of the legal actions (here the first; in the auction it may be a bid or a pass).
#    Every action goes to /actions: the entry of legal_actions as it is, and the version the
#    turn gave: if the match moved on meanwhile, the answer is 409 stale_version and nothing
#    changes.
ACTION=$(echo "$TURN" | field legal_actions.0)            # e.g. {"kind": "bid", "tricks": 4}
BODY=$(echo "$ACTION" | python3 -c 'import json, sys
print(json.dumps({**json.load(sys.stdin), "expected_version": int(sys.argv[1])}))' "$VERSION")
VIEW=$(curl -sf -X POST "$B/matches/$MATCH/actions" -H "$H" \
    -H 'Content-Type: application/json' -d "$BODY")      # the answer is your seat's view
echo "took $ACTION at version $VERSION; now version $(echo "$VIEW" | field version)"
echo "hand: $(echo "$VIEW" | field deal.hand)"

# 5. Every move so far, in order (the computer players' too), by the event feed's cursor.
curl -sf "$B/matches/$MATCH/events?after=0&wait=0" -H "$H"
echo
# To play on, keep the stream open and answer each `turn` until its `end` event:
# first_match.py does exactly that.
