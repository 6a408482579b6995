// Each test file runs with the run's database and index prefix set by global-setup; keep logs quiet.
process.env.LOG_LEVEL ??= 'silent';
