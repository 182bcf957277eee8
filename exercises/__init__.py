"""The curriculum: objectives, lesson text, exercises and grading. Imports the
engine, never textual."""
