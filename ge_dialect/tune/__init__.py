"""Auto-tuning by simulation (ge-tune): the search space (`space`), one trial's measurement
(`evaluate`), dimension gears (`gears`), the Optuna study and where its trials run
(`study`; Ray in `ray_executor`).  Optuna and Ray are imported only here."""
