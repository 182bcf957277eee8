"""Grading: the exercise model, tolerant readers, scoring rules, diagnoses."""
