/**
 * {@code dlock doctor}: what the deployment guarantees, one line per check. The checks of a Redis
 * server ({@code DoctorServerChecks}), of how the servers are put together
 * ({@code DoctorTopologyChecks}), of real locks ({@code DoctorLockChecks}) and of PostgreSQL
 * ({@code DoctorPostgresChecks}, {@code DoctorSessionChecks}, {@code DoctorSchemaChecks}), each on
 * a plain connection of its own ({@code DoctorNode}, {@code DoctorDatabase}).
 */
package dev.dlock.cli.doctor;
