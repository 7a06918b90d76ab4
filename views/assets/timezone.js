// Prefills the time zone field with the browser's own zone; the person can still change it.
const field = document.querySelector('input[name="timezone"][data-from-browser]');
if (field && !field.value) field.value = Intl.DateTimeFormat().resolvedOptions().timeZone;
