"""The reports: notebooks executed headless into HTML, the terminal summary, what every notebook starts with."""
