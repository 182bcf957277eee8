"""The classroom: quiz definitions, exam sessions, submissions and grading."""
