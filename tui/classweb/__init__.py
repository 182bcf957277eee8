"""The class server's web half: the sign-in page, the page that holds the app's
terminal (loading nothing from the internet), the session cookie and the one app
process per signed-in browser tab. The class database is ``exercises.classdb``."""
