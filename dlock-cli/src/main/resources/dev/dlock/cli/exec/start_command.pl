# start_command.pl: run by 'dlock exec' (perl -e) between the JVM and the command, which it
# execs in place, in the same process.
#
# ARGV[0]  the JVM's pid: the process that must be this one's parent
# ARGV[1]  the signal mask to start the command with (hex, as SigBlk in /proc/PID/status)
# ARGV[2]  the signals the command starts with ignored (hex, as SigIgn); every other one is default
# ARGV[3]  the number of the rt_sigaction system call on this machine, 0 when unknown
# ARGV[4..] the command and its arguments
#
# Exits  137 without running the command when the JVM is gone already; 127 / 126 when the
#        command cannot be found / run; else it is the command.
#
# Why: a command started by a JVM inherits the Java thread's signal mask (SIGQUIT blocked) and the
# dispositions the JVM's process spawning leaves (signals 32 and 33 ignored), so 'kill -QUIT'
# would not reach it. A shell passes on the mask and the ignored signals it was started with, and
# nothing else: so does this, with dlock's own. glibc refuses to touch signals 32 and 33 (it uses
# them itself), hence the raw system call for those. And setpriv's parent-death signal, set before
# this runs, cannot be sent if the JVM died before it was set: then the parent is another process.

use strict;
use warnings;
use POSIX ();

my ($jvm, $mask_hex, $ignore_hex, $rt_sigaction) = splice @ARGV, 0, 4;
exit 137 if getppid() != $jvm;

sub signals {
    my ($hex) = @_;
    my %set;
    my @nibbles = reverse split //, $hex;
    for my $i (0 .. $#nibbles) {
        my $bits = hex $nibbles[$i];
        for my $b (0 .. 3) {
            $set{$i * 4 + $b + 1} = 1 if $bits & (1 << $b);
        }
    }
    return %set;
}

sub ignored_now {
    open my $status, '<', '/proc/self/status' or return '0';
    while (my $line = <$status>) {
        return $1 if $line =~ /^SigIgn:\s*([0-9a-fA-F]+)/;
    }
    return '0';
}

sub set_disposition {
    my ($signal, $ignore) = @_;
    if ($signal < 32) {
        POSIX::sigaction($signal, POSIX::SigAction->new($ignore ? 'IGNORE' : 'DEFAULT'));
    } elsif ($rt_sigaction) {
        # struct sigaction as the kernel reads it: handler (0 default, 1 ignore), flags, restorer, mask
        my $action = pack('Q4', $ignore ? 1 : 0, 0, 0, 0);
        syscall($rt_sigaction, $signal, $action, 0, 8);
    }
}

my %wanted_ignored = signals($ignore_hex);
my %ignored = signals(ignored_now());
for my $signal (1 .. 64) {
    next if $signal == 9 || $signal == 19;
    set_disposition($signal, 0) if $ignored{$signal} && !$wanted_ignored{$signal};
    set_disposition($signal, 1) if !$ignored{$signal} && $wanted_ignored{$signal};
}
my %blocked = signals($mask_hex);
POSIX::sigprocmask(POSIX::SIG_SETMASK(), POSIX::SigSet->new(grep { $_ != 32 && $_ != 33 } keys %blocked));

{
    no warnings 'exec';
    exec { $ARGV[0] } @ARGV;
}
print STDERR "dlock: cannot run '$ARGV[0]': $!\n";
exit($!{ENOENT} ? 127 : 126);
