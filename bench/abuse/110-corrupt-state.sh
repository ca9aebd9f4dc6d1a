# Corrupt state: garbage in a task file and a batch file under $STATE_DIR/batch, then a restart.
# Expected: the gateway starts, logs one WARN naming each file, and serves.
CORRUPT_TASK="$STATE_DIR/batch/tasks/task_0000000000000000000c0bad.json"
CORRUPT_BATCH="$STATE_DIR/batch/batches/batch_0000000000000000000c0bad.batch.json"
mkdir -p "$(dirname "$CORRUPT_TASK")" "$(dirname "$CORRUPT_BATCH")"
printf '{"owner":"team-a","task":{"id":' > "$CORRUPT_TASK"
head -c 512 /dev/urandom > "$CORRUPT_BATCH"
corrupt_from=$(wc -l < "$GW_LOG")
restart_gateway
corrupt_warns=$(tail -n +"$((corrupt_from + 1))" "$GW_LOG" | grep 'WARN' | grep -c 'c0bad' || true)
corrupt_task=$(tail -n +"$((corrupt_from + 1))" "$GW_LOG" | grep -c "WARN.*$(basename "$CORRUPT_TASK")" || true)
corrupt_batch=$(tail -n +"$((corrupt_from + 1))" "$GW_LOG" | grep -c "WARN.*$(basename "$CORRUPT_BATCH")" || true)
report "110 corrupt state" "garbage task + batch file, restart" \
  "started; WARN lines naming the task file: $corrupt_task, the batch file: $corrupt_batch (both: $corrupt_warns)"
rm -f "$CORRUPT_TASK" "$CORRUPT_BATCH"
