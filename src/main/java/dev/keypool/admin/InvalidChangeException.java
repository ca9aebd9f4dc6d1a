package dev.keypool.admin;

import java.util.List;

/** An operator's change that cannot be made, with every reason (each {@code <where>: <what is wrong>}). */
public final class InvalidChangeException extends RuntimeException {

    private final List<String> problems;

    public InvalidChangeException(List<String> problems) {
        super(String.join("; ", problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
