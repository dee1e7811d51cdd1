"""Every write in assess goes through a function here: `<entity>_<action>(*, ...)`."""
