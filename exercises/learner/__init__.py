"""The learner's own state: the progress store, review schedule, mastery."""
