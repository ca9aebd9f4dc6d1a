package dev.keypool.quota;

/** A request's tokens as estimated before it is sent: its prompt, and the most its answer may take. */
public record TokenEstimate(long prompt, long answer) {

    public long total() {
        return prompt + answer;
    }
}
