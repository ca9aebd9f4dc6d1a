package dev.keypool.store;

/**
 * How the request log's SQL picks rows by their time, {@code from <= ts < to}, in each database: every query of the log
 * by time (the admin pages and usage, the spend read back at start, the retention) says its bounds through this.
 */
public enum RequestLogTime {

    /** SQLite: a row's id is made from its time ({@link TimeIds}), so a range of time is a range of the table's rowid. */
    BY_ID("id") {
        @Override
        public long bound(long epochMs) {
            return TimeIds.first(epochMs);
        }
    },

    /** PostgreSQL: ids from a sequence, several instances writing; {@code ts} has its index, the server's work. */
    BY_TS("ts") {
        @Override
        public long bound(long epochMs) {
            return epochMs;
        }
    };

    private final String column;

    RequestLogTime(String column) {
        this.column = column;
    }

    public static RequestLogTime of(Database database) {
        return database.kind().equals(Database.POSTGRESQL) ? BY_TS : BY_ID;
    }

    /** The condition {@code ts >= ?}, its parameter {@link #bound} of the time. */
    public String atOrAfter() {
        return column + " >= ?";
    }

    /** The condition {@code ts < ?}, its parameter {@link #bound} of the time. */
    public String before() {
        return column + " < ?";
    }

    /** The parameter that stands for {@code epochMs} in {@link #atOrAfter} and {@link #before}. */
    public abstract long bound(long epochMs);
}
