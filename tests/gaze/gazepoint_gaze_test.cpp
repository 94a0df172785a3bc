// issue 6: written next
