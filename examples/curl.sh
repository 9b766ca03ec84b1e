#!/bin/sh
# A walk through the rlm gateway's API with curl. Start a server first:
#   rlm serve                   # the built-in demo model answers, offline
# or with a real model:
#   rlm serve --upstream https://api.openai.com/v1 --upstream-key $OPENAI_API_KEY \
#             --root-model gpt-4.1 --api-key secret
# then: RLM_URL=http://127.0.0.1:8080 RLM_API_KEY=secret sh examples/curl.sh
# A generated log is uploaded once and asked about: the same question
# stored, streamed and as a background response (OPS-7719, from the
# built-in demo model as from a real one), then a follow-up in the same
# REPL session (its time, 10:20:34), which needs a real model: the built-in one
# answers it "No answer: ... (This needs a real model: ...)".
set -eu
URL=${RLM_URL:-http://127.0.0.1:8080}
KEY=${RLM_API_KEY:-}
MODEL=${MODEL:-rlm}
AUTH="Authorization: Bearer $KEY"
JSON="Content-Type: application/json"

echo "== models"
MODELS=$(curl -sS -H "$AUTH" "$URL/v1/models")
echo "$MODELS"
case $MODELS in *'"served_by":"builtin"'*)
	echo "note: the server answers with its built-in demo model rlm-tiny-demo, which only looks facts up in documents;"
	echo "      the follow-up below needs a real model (rlm serve --upstream URL --root-model NAME)" ;;
esac

FILE=$(mktemp)
trap 'rm -f "$FILE"' EXIT
# A web server's log, a line a second: every 50th a disk warning, and one
# note with a ticket number (at 10:20:34).
i=0
while [ $i -lt 2000 ]; do
	ts="2026-11-28T10:%02d:%02dZ"
	if [ $i -eq 1234 ]; then printf "$ts NOTE the ticket of the disk-full alert is OPS-7719\n" $((i / 60)) $((i % 60)); fi
	if [ $((i % 50)) -eq 7 ]; then
		printf "$ts WARN disk /var is 97%% full\n" $((i / 60)) $((i % 60))
	else
		printf "$ts INFO GET /api/items 200 in %dms\n" $((i / 60)) $((i % 60)) $((i % 13 + 2))
	fi
	i=$((i + 1))
done >"$FILE"
Q="What is the ticket of the disk-full alert?"

echo "== upload the log"
UPLOAD=$(curl -sS -H "$AUTH" -F purpose=user_data -F "file=@$FILE;filename=app.log" "$URL/v1/files")
echo "$UPLOAD"
FILE_ID=$(echo "$UPLOAD" | sed -n 's/.*"id":"\(file-[0-9a-f]*\)".*/\1/p')

echo "== ask about the file (stored, so it can be fetched again)"
ANSWER=$(curl -sS -H "$AUTH" -H "$JSON" "$URL/v1/chat/completions" -d '{
  "model": "'"$MODEL"'", "store": true,
  "rlm": {"max_iterations": 10, "timeout": "5m"},
  "messages": [{"role": "user", "content": [
    {"type": "text", "text": "'"$Q"'"},
    {"type": "file", "file": {"file_id": "'"$FILE_ID"'"}}]}]}')
echo "$ANSWER"
CHAT_ID=$(echo "$ANSWER" | sed -n 's/^{"id":"\(chatcmpl-[0-9a-f]*\)".*/\1/p')

echo "== the stored completion"
curl -sS -H "$AUTH" "$URL/v1/chat/completions/$CHAT_ID"
echo

echo "== the same question, streamed (progress chunks have \"choices\":[] and an \"rlm\" field)"
curl -sS -N -H "$AUTH" -H "$JSON" "$URL/v1/chat/completions" -d '{
  "model": "'"$MODEL"'", "stream": true, "stream_options": {"include_usage": true},
  "messages": [{"role": "user", "content": [
    {"type": "text", "text": "'"$Q"'"},
    {"type": "file", "file": {"file_id": "'"$FILE_ID"'"}}]}]}'

echo "== the same question as a background response (Responses API): answered at once, polled to the end"
RESP=$(curl -sS -H "$AUTH" -H "$JSON" "$URL/v1/responses" -d '{
  "model": "'"$MODEL"'", "background": true,
  "input": [{"role": "user", "content": [
    {"type": "input_text", "text": "'"$Q"'"},
    {"type": "input_file", "file_id": "'"$FILE_ID"'"}]}]}')
echo "$RESP"
RESP_ID=$(echo "$RESP" | sed -n 's/^{"id":"\(resp_[0-9a-f]*\)".*/\1/p')
while :; do
	RESP=$(curl -sS -H "$AUTH" "$URL/v1/responses/$RESP_ID")
	case $RESP in *'"status":"queued"'* | *'"status":"in_progress"'*) sleep 0.2 ;; *) break ;; esac
done
echo "$RESP"

echo "== a follow-up in the same REPL session (rlm.session says whether it continued)"
curl -sS -H "$AUTH" -H "$JSON" "$URL/v1/responses" -d '{
  "model": "'"$MODEL"'", "previous_response_id": "'"$RESP_ID"'",
  "input": "At what time was that ticket noted?"}'
echo

echo "== an error: unknown model"
curl -sS -H "$AUTH" -H "$JSON" "$URL/v1/chat/completions" -d '{"model":"no-such-model","messages":[{"role":"user","content":"x"}]}'
echo

echo "== delete the file"
curl -sS -X DELETE -H "$AUTH" "$URL/v1/files/$FILE_ID"
echo
