heavy 8ms 9ms 9ms  flags=reset-on-fork,reclaim  -- t_uua 3r 2ms 10mss |
