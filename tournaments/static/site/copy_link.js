// The Copy buttons of invitation links and of a person's calendar link: the link goes to the clipboard where the browser allows it; otherwise
// it is selected in its read-only field, ready for the phone's or the keyboard's own copy.
document.addEventListener("click", async (event) => {
  const button = event.target.closest("button.copy");
  if (!button) return;
  const field = document.getElementById(button.dataset.copy);
  const said = button.parentElement.querySelector(".copied");
  try {
    await navigator.clipboard.writeText(field.value);
    said.textContent = "Copied.";
  } catch {
    field.focus();
    field.select();
    said.textContent = "Selected: copy it with your device's Copy.";
  }
});
