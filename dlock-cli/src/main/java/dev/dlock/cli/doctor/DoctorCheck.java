package dev.dlock.cli.doctor;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One line of {@code dlock doctor}: how a check came out, on which server, what was found and
 * what it means for the locks.
 *
 * @param status  OK, WARN (the locks work, with a weakness named in the line) or FAIL (a lock may not
 *                lock, or cannot be taken)
 * @param name    the check, one word (docs/cli.md lists them)
 * @param node    the server or group it is about ({@code redis://host:port}, a Sentinel master,
 *                {@code cluster}, {@code redlock}), never with a password
 * @param finding what was found, with what it means for the locks
 */
record DoctorCheck(Status status, String name, String node, String finding) {

    enum Status { OK, WARN, FAIL }

    static DoctorCheck ok(String name, String node, String finding) {
        return new DoctorCheck(Status.OK, name, node, finding);
    }

    static DoctorCheck warn(String name, String node, String finding) {
        return new DoctorCheck(Status.WARN, name, node, finding);
    }

    static DoctorCheck fail(String name, String node, String finding) {
        return new DoctorCheck(Status.FAIL, name, node, finding);
    }

    String line() {
        return String.format("%-4s  %-14s %-26s %s", status, name, node, finding);
    }

    Map<String, Object> json() {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("status", status.name());
        fields.put("check", name);
        fields.put("node", node);
        fields.put("finding", finding);
        return fields;
    }

    /** 0 all OK, 1 warnings, 2 failures. */
    static int exitCode(List<DoctorCheck> checks) {
        if (checks.stream().anyMatch(check -> check.status == Status.FAIL)) {
            return 2;
        }
        return checks.stream().anyMatch(check -> check.status == Status.WARN) ? 1 : 0;
    }
}
