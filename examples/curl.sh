#!/bin/sh
# A walk through the rlm gateway's API with curl. Start a server first:
#   rlm serve --upstream https://api.openai.com/v1 --upstream-key $OPENAI_API_KEY \
#             --root-model gpt-4.1 --api-key secret
# then: RLM_URL=http://127.0.0.1:8080 RLM_KEY=secret sh examples/curl.sh [file]
# The file (default: a generated log) is uploaded once and queried twice.
set -eu
URL=${RLM_URL:-http://127.0.0.1:8080}
KEY=${RLM_KEY:-}
MODEL=${RLM_MODEL:-rlm}
AUTH="Authorization: Bearer $KEY"
JSON="Content-Type: application/json"

echo "== models"
curl -sS -H "$AUTH" "$URL/v1/models"
echo

FILE=${1:-}
if [ -z "$FILE" ]; then
	FILE=$(mktemp)
	trap 'rm -f "$FILE"' EXIT
	i=0
	while [ $i -lt 2000 ]; do
		if [ $((i % 50)) -eq 7 ]; then echo "line $i FAIL disk full"; else echo "line $i ok"; fi
		i=$((i + 1))
	done >"$FILE"
fi

echo "== upload $FILE"
UPLOAD=$(curl -sS -H "$AUTH" -F purpose=user_data -F "file=@$FILE;filename=app.log" "$URL/v1/files")
echo "$UPLOAD"
FILE_ID=$(echo "$UPLOAD" | sed -n 's/.*"id":"\(file-[0-9a-f]*\)".*/\1/p')

echo "== ask about the file (stored, so it can be fetched again)"
ANSWER=$(curl -sS -H "$AUTH" -H "$JSON" "$URL/v1/chat/completions" -d '{
  "model": "'"$MODEL"'", "store": true,
  "rlm": {"max_iterations": 10, "timeout": "5m"},
  "messages": [{"role": "user", "content": [
    {"type": "text", "text": "How many lines say FAIL?"},
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
    {"type": "text", "text": "How many lines say FAIL?"},
    {"type": "file", "file": {"file_id": "'"$FILE_ID"'"}}]}]}'

echo "== the same question as a background response (Responses API): answered at once, polled to the end"
RESP=$(curl -sS -H "$AUTH" -H "$JSON" "$URL/v1/responses" -d '{
  "model": "'"$MODEL"'", "background": true,
  "input": [{"role": "user", "content": [
    {"type": "input_text", "text": "How many lines say FAIL?"},
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
  "input": "Which of those lines came first?"}'
echo

echo "== an error: unknown model"
curl -sS -H "$AUTH" -H "$JSON" "$URL/v1/chat/completions" -d '{"model":"no-such-model","messages":[{"role":"user","content":"x"}]}'
echo

echo "== delete the file"
curl -sS -X DELETE -H "$AUTH" "$URL/v1/files/$FILE_ID"
echo
