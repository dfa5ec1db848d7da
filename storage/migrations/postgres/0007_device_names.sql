-- `accounts.name` holds the display name a sign-in provider gave. Device sign-ins give none, yet
-- they stored a copy of the first friend code's name there, which a rename left behind; the
-- views now show the friend code's own name instead, so the copies go.
UPDATE accounts SET name = NULL WHERE provider = 'device';
